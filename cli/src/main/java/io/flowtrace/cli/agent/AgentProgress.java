package io.flowtrace.cli.agent;

import io.flowtrace.agent.kafka.SpoolingPublisher;
import io.flowtrace.agent.metrics.AgentMetrics;
import io.flowtrace.cli.capture.CaptureBytes;
import io.flowtrace.cli.capture.CountingInputStream;
import io.flowtrace.cli.console.Progress;
import io.flowtrace.cli.console.Terminal;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import me.tongfei.progressbar.ProgressBar;

/**
 * An agent's progress on stderr. When stderr is a terminal (isatty(2), as analyze): the progressbar
 * library's bar, against the file's size (its own bytes, so .gz works too) with percentage, speed
 * and ETA, or a running count for standard input and live sources, followed by packets, packets/s,
 * batches and the spool state; cleared before the summary. Otherwise one line every 5 s (a log's
 * view of a long-running agent); nothing with -q. Reads the metrics only, from its own thread.
 */
public final class AgentProgress {
    private static final long TERMINAL_PERIOD_MS = 500;
    private static final long LOG_PERIOD_MS = 5000;
    private final String label;
    private final AgentMetrics metrics;
    private final SpoolingPublisher publisher;
    private final boolean quiet;
    private final long totalBytes;
    private final boolean terminal;
    private final AtomicLong bytesRead = new AtomicLong();
    private final long startNanos = System.nanoTime();
    private volatile boolean countsBytes;
    private Thread display;
    private volatile boolean running;
    private ProgressBar bar;

    AgentProgress(String label, AgentMetrics metrics, SpoolingPublisher publisher, boolean quiet, long totalBytes) {
        this.label = label;
        this.metrics = metrics;
        this.publisher = publisher;
        this.quiet = quiet;
        this.totalBytes = totalBytes;
        this.terminal = Terminal.isTerminal(Terminal.STDERR);
    }

    /** Counts the bytes read from {@code in} (standard input: its compressed bytes for .gz) for the bar. */
    InputStream counting(InputStream in) {
        countsBytes = true;
        return new CountingInputStream(in, bytesRead);
    }

    /**
     * Opens a capture file counting its own bytes (inflated for .gz) as the reader takes them, so the
     * percentage agrees with the packets read (CaptureBytes.java); the total is {@link CaptureBytes#size}.
     */
    InputStream open(Path file) throws IOException {
        countsBytes = true;
        return CaptureBytes.open(file, bytesRead::set);
    }

    void start() {
        if (quiet) {
            return;
        }
        running = true;
        long periodMs = terminal ? TERMINAL_PERIOD_MS : LOG_PERIOD_MS;
        display = new Thread(
                () -> {
                    while (running) {
                        try {
                            Thread.sleep(periodMs);
                        } catch (InterruptedException e) {
                            return;
                        }
                        if (running && terminal) {
                            update();
                        } else if (running) {
                            logLine();
                        }
                    }
                },
                "flowtrace-progress");
        display.setDaemon(true);
        display.start();
    }

    /** Stops the display and clears the bar, before the summary is printed. */
    void stopDisplay() {
        running = false;
        if (display != null) {
            display.interrupt();
            try {
                display.join(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (bar != null) {
            bar.close();
        }
    }

    private void update() {
        if (bar == null) {
            // a stream's bytes when it is read through counting(), else (live capture, conntrack) the records read
            bar = countsBytes || totalBytes > 0
                    ? Progress.bar(Progress.shortName(label), totalBytes, System.err)
                    : Progress.bar(label, -1, " read", 1, System.err);
        }
        long read = metrics.read.sum();
        double s = elapsedSeconds();
        bar.stepTo(countsBytes || totalBytes > 0 ? bytesRead.get() : read);
        String batches = metrics.batchFlushes().isEmpty()
                ? ""
                : String.format(Locale.ROOT, ", %,d batches", metrics.publishedBatches.sum());
        bar.setExtraMessage(String.format(
                Locale.ROOT, "  %,d packets %,.0f/s%s%s", read, s > 0 ? read / s : 0.0, batches, spoolNote()));
    }

    private void logLine() {
        double s = elapsedSeconds();
        long read = metrics.read.sum();
        System.err.printf(
                Locale.ROOT,
                "flowtrace agent: %s: %,d packets read, %,d published%s, %,.0f packets/s%s%s%n",
                label,
                read,
                metrics.published.sum(),
                batchesNote(),
                s > 0 ? read / s : 0.0,
                totalBytes > 0 ? String.format(Locale.ROOT, ", %.0f%%", 100.0 * bytesRead.get() / totalBytes) : "",
                spoolNote());
        System.err.flush();
    }

    private String spoolNote() {
        return publisher.spooling()
                ? String.format(
                        Locale.ROOT,
                        ", SPOOLING (%,d packets in %,d records in spool)",
                        publisher.spoolPendingPackets(),
                        publisher.spoolPendingRecords())
                : "";
    }

    /** " in N batches" while batches carry the packets, else nothing. */
    private String batchesNote() {
        long batches = metrics.publishedBatches.sum();
        return metrics.batchFlushes().isEmpty() ? "" : String.format(Locale.ROOT, " in %,d batches", batches);
    }

    AgentMetrics metrics() {
        return metrics;
    }

    double elapsedSeconds() {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    void printSummary(PrintStream err) {
        double s = elapsedSeconds();
        long read = metrics.read.sum();
        StringBuilder b = new StringBuilder();
        b.append(String.format(
                Locale.ROOT,
                "flowtrace agent: %s: %,d read, %,d published, %,d spooled, %,d replayed from spool, "
                        + "%,d dropped (spool full), %,d left in spool; %.2f s (%,.0f packets/s)",
                label,
                read,
                metrics.published.sum(),
                metrics.spooled.sum(),
                metrics.replayed.sum(),
                metrics.dropped.sum(),
                publisher.spoolPendingPackets(),
                s,
                s > 0 ? read / s : 0.0));
        if (!metrics.batchFlushes().isEmpty()) {
            b.append(String.format(
                    Locale.ROOT,
                    "%n  batches: %,d published, %,d spooled, %,d replayed from spool, %,d dropped, "
                            + "%,d records left in spool",
                    metrics.publishedBatches.sum(),
                    metrics.spooledBatches.sum(),
                    metrics.replayedBatches.sum(),
                    metrics.droppedBatches.sum(),
                    publisher.spoolPendingRecords()));
            append(b, "batches flushed by", metrics.batchFlushes());
        }
        append(b, "skipped", metrics.skipped());
        append(b, "malformed", metrics.malformed());
        append(b, "failed", metrics.failed());
        append(b, "source", metrics.sourceCounters());
        err.println(b);
    }

    private static void append(StringBuilder b, String what, Map<String, Long> counts) {
        if (counts.isEmpty()) {
            return;
        }
        b.append("\n  ").append(what).append(':');
        counts.forEach((k, v) -> b.append(String.format(Locale.ROOT, " %s %,d;", k, v)));
    }
}
