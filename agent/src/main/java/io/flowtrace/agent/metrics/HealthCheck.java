package io.flowtrace.agent.metrics;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * Whether an agent is doing its job. Readiness, {@code GET /healthz} ({@link #status()}): unhealthy when tcpdump keeps restarting ({@code maxRestarts} or more restarts within
 * {@code restartWindow}), or when records keep being read but none has been published for
 * {@code maxSilence} (Kafka unreachable beyond what the spool is for, or the publisher stuck). An idle
 * interface (nothing read, nothing published) is healthy. Liveness, {@code GET /livez} ({@link
 * #liveness()}): the crash loop only, so a Kafka outage never restarts a capturing agent. Reads the counters only; {@link #sample()}
 * is called about once a second so restarts are timed to the second, not to the probe's period.
 */
public final class HealthCheck {
    /** Defaults: 3 restarts in 5 minutes (a crash loop, not one lost interface), 5 minutes without publishing. */
    public static final int DEFAULT_MAX_RESTARTS = 3;

    public static final Duration DEFAULT_RESTART_WINDOW = Duration.ofMinutes(5);
    public static final Duration DEFAULT_MAX_SILENCE = Duration.ofMinutes(5);
    private static final String RESTARTS = "tcpdump_restarts";

    private final AgentMetrics metrics;
    private final LongSupplier nanoClock;
    private final int maxRestarts;
    private final long restartWindowNanos;
    private final long maxSilenceNanos;
    private final ArrayDeque<Long> restartTimes = new ArrayDeque<>();
    private long restartsSeen;
    private long published = -1;
    private long readAtLastPublish;
    private long lastPublishChangeNanos;

    /** The answer of one probe: healthy or not, and why in one line. */
    public record Status(boolean healthy, String reason) {}

    public HealthCheck(
            AgentMetrics metrics,
            LongSupplier nanoClock,
            int maxRestarts,
            Duration restartWindow,
            Duration maxSilence) {
        this.metrics = metrics;
        this.nanoClock = nanoClock;
        this.maxRestarts = maxRestarts;
        this.restartWindowNanos = restartWindow.toNanos();
        this.maxSilenceNanos = maxSilence.toNanos();
        this.lastPublishChangeNanos = nanoClock.getAsLong();
    }

    public static HealthCheck withDefaults(AgentMetrics metrics) {
        return new HealthCheck(
                metrics, System::nanoTime, DEFAULT_MAX_RESTARTS, DEFAULT_RESTART_WINDOW, DEFAULT_MAX_SILENCE);
    }

    /** Takes note of new restarts and publishing progress. */
    public synchronized void sample() {
        long now = nanoClock.getAsLong();
        long restarts = metrics.sourceCounters().getOrDefault(RESTARTS, 0L);
        for (long i = restartsSeen; i < restarts && restartTimes.size() <= maxRestarts; i++) {
            restartTimes.addLast(now);
        }
        restartsSeen = Math.max(restartsSeen, restarts);
        while (!restartTimes.isEmpty() && now - restartTimes.peekFirst() > restartWindowNanos) {
            restartTimes.removeFirst();
        }
        long p = metrics.published.sum();
        if (p != published) {
            published = p;
            readAtLastPublish = metrics.read.sum();
            lastPublishChangeNanos = now;
        }
    }

    /**
     * Liveness ({@code GET /livez}): only a tcpdump crash loop, never a publishing silence. An agent that
     * cannot reach Kafka is alive and spooling; restarting it would lose the capture exactly while the
     * spool is bridging the outage, so the silence rule is readiness only ({@link #status()}).
     */
    public synchronized Status liveness() {
        sample();
        Status loop = restartLoop();
        return loop != null ? loop : new Status(true, "alive");
    }

    /** Readiness ({@code GET /healthz}): not in a tcpdump crash loop, and publishing what it reads. */
    public synchronized Status status() {
        sample();
        Status loop = restartLoop();
        if (loop != null) {
            return loop;
        }
        long silent = nanoClock.getAsLong() - lastPublishChangeNanos;
        long readSince = metrics.read.sum() - readAtLastPublish;
        if (silent >= maxSilenceNanos && readSince > 0) {
            return new Status(
                    false,
                    String.format(
                            Locale.ROOT,
                            "nothing published for %d s while %,d records were read",
                            silent / 1_000_000_000L,
                            readSince));
        }
        return new Status(true, "ok");
    }

    private Status restartLoop() {
        if (restartTimes.size() < maxRestarts) {
            return null;
        }
        return new Status(
                false,
                String.format(
                        Locale.ROOT,
                        "tcpdump restarted %d times in the last %d s",
                        restartTimes.size(),
                        restartWindowNanos / 1_000_000_000L));
    }
}
