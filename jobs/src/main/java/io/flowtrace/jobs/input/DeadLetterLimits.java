package io.flowtrace.jobs.input;

import io.flowtrace.avro.DeadLetter;
import java.nio.ByteBuffer;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bounds what bad input costs the sinks (docs/reliability.md "Security"): a dead letter keeps at
 * most {@code maxRawBytes} of its raw value (the reason then ends with the value's original length,
 * so both sinks keep it without a new column), and each subtask passes at most
 * {@code perSecond} dead letters a second on wall-clock time (a burst of ten seconds' worth first);
 * the rest are dropped, counted in {@code deadLettersDropped} and logged once a minute with the
 * count. Without it a writer of the input topics could fill PostgreSQL with 1 MiB rows as fast as
 * Kafka takes them. Stateless across restarts: a restart starts with a full burst.
 */
public final class DeadLetterLimits extends ProcessFunction<DeadLetter, DeadLetter> {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(DeadLetterLimits.class);
    private static final long LOG_EVERY_MS = 60_000;

    private final int maxRawBytes;
    private final int perSecond;
    private transient Counter truncated;
    private transient Counter dropped;
    private transient double tokens;
    private transient long refilledAt;
    private transient long loggedAt;
    private transient long droppedSinceLog;

    public DeadLetterLimits(int maxRawBytes, int perSecond) {
        this.maxRawBytes = maxRawBytes;
        this.perSecond = perSecond;
    }

    @Override
    public void open(OpenContext context) {
        truncated = getRuntimeContext().getMetricGroup().counter("deadLettersTruncated");
        dropped = getRuntimeContext().getMetricGroup().counter("deadLettersDropped");
        start(System.currentTimeMillis());
    }

    /** A full burst at {@code now} (open, tests). */
    void start(long now) {
        tokens = burst();
        refilledAt = now;
        loggedAt = now;
    }

    @Override
    public void processElement(DeadLetter d, Context ctx, Collector<DeadLetter> out) {
        long now = System.currentTimeMillis();
        if (!admit(now)) {
            dropped.inc();
            droppedSinceLog++;
            if (now - loggedAt >= LOG_EVERY_MS) {
                LOG.warn(
                        "{} dead letters dropped in the last {} s: more than {} a second (dead-letters-per-second)",
                        droppedSinceLog,
                        (now - loggedAt) / 1000,
                        perSecond);
                loggedAt = now;
                droppedSinceLog = 0;
            }
            return;
        }
        if (truncate(d, maxRawBytes)) {
            truncated.inc();
        }
        out.collect(d);
    }

    private double burst() {
        return 10.0 * perSecond;
    }

    /** Whether one more dead letter may pass at {@code now}: a token bucket of ten seconds' worth. */
    boolean admit(long now) {
        if (now > refilledAt) {
            tokens = Math.min(burst(), tokens + (now - refilledAt) * perSecond / 1000.0);
            refilledAt = now;
        }
        if (tokens < 1) {
            return false;
        }
        tokens--;
        return true;
    }

    /**
     * Cuts {@code d}'s raw value to {@code maxRawBytes} and appends its original length to the
     * reason; false when it was short enough.
     */
    static boolean truncate(DeadLetter d, int maxRawBytes) {
        ByteBuffer raw = d.getRaw();
        int length = raw.remaining();
        if (length <= maxRawBytes) {
            return false;
        }
        ByteBuffer kept = raw.duplicate();
        kept.limit(kept.position() + maxRawBytes);
        byte[] bytes = new byte[maxRawBytes];
        kept.get(bytes);
        d.setRaw(ByteBuffer.wrap(bytes));
        d.setReason(d.getReason() + " [raw value cut to its first " + maxRawBytes + " of " + length + " bytes]");
        return true;
    }
}
