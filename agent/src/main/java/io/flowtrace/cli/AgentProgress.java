package io.flowtrace.cli;

import com.sun.jna.Library;
import com.sun.jna.Native;
import io.flowtrace.agent.kafka.SpoolingPublisher;
import io.flowtrace.agent.metrics.AgentMetrics;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An agent's progress on stderr: when stderr is a terminal, a bar (for files of known size) with
 * packets/s and ETA redrawn twice a second; otherwise one line every 5 s; nothing with -q. Also the
 * final summary. Reads the metrics only, from its own thread.
 */
final class AgentProgress {
    private final String label;
    private final AgentMetrics metrics;
    private final SpoolingPublisher publisher;
    private final boolean quiet;
    private final long totalBytes;
    private final boolean terminal;
    private final AtomicLong bytesRead = new AtomicLong();
    private final long startNanos = System.nanoTime();
    private Thread display;
    private volatile boolean running;
    private boolean drawn;

    AgentProgress(String label, AgentMetrics metrics, SpoolingPublisher publisher, boolean quiet, long totalBytes) {
        this.label = label;
        this.metrics = metrics;
        this.publisher = publisher;
        this.quiet = quiet;
        this.totalBytes = totalBytes;
        this.terminal = StderrTerminal.isTerminal();
    }

    /** Counts the bytes read from {@code in} (the file's compressed bytes for .gz) for the bar and ETA. */
    InputStream counting(InputStream in) {
        return new CountingInputStream(in, bytesRead);
    }

    void start() {
        if (quiet) {
            return;
        }
        running = true;
        long periodMs = terminal ? 500 : 5000;
        display = new Thread(() -> {
            while (running) {
                try {
                    Thread.sleep(periodMs);
                } catch (InterruptedException e) {
                    return;
                }
                if (running) {
                    draw();
                }
            }
        }, "flowtrace-progress");
        display.setDaemon(true);
        display.start();
    }

    void stopDisplay() {
        running = false;
        if (display != null) {
            display.interrupt();
        }
        if (drawn && terminal) {
            System.err.print("\r\033[K");
            System.err.flush();
        }
    }

    private synchronized void draw() {
        double s = elapsedSeconds();
        long read = metrics.read.sum();
        double rate = s > 0 ? read / s : 0;
        String spool = publisher.spooling() ? String.format(", SPOOLING (%,d packets in %,d records in spool)",
                publisher.spoolPendingPackets(), publisher.spoolPendingRecords()) : "";
        if (terminal) {
            String batches = metrics.batchFlushes().isEmpty() ? "" : String.format(", %,d batches", metrics.publishedBatches.sum());
            System.err.print("\r" + renderBar(label, bytesRead.get(), totalBytes, read, rate, s) + batches + spool + "\033[K");
        } else {
            System.err.printf("flowtrace agent: %s: %,d packets read, %,d published%s, %,.0f packets/s%s%s%n", label, read,
                    metrics.published.sum(), batchesNote(), rate,
                    totalBytes > 0 ? String.format(", %.0f%%", 100.0 * bytesRead.get() / totalBytes) : "", spool);
        }
        System.err.flush();
        drawn = true;
    }

    /** " in N batches" while batches carry the packets, else nothing. */
    private String batchesNote() {
        long batches = metrics.publishedBatches.sum();
        return metrics.batchFlushes().isEmpty() ? "" : String.format(" in %,d batches", batches);
    }

    /** One progress line: {@code label [#####.....] 42% 1,234 packets 56,789/s ETA 0:12}. */
    static String renderBar(String label, long done, long total, long packets, double rate, double elapsedSeconds) {
        StringBuilder b = new StringBuilder(label).append(' ');
        if (total > 0) {
            double f = Math.min(1.0, (double) done / total);
            int width = 30;
            int filled = (int) Math.round(f * width);
            b.append('[').append("#".repeat(filled)).append(".".repeat(width - filled)).append("] ");
            b.append(String.format("%3.0f%% ", f * 100));
            b.append(String.format("%,d packets %,.0f/s", packets, rate));
            if (f > 0 && f < 1) {
                long eta = Math.round(elapsedSeconds * (1 - f) / f);
                b.append(String.format(" ETA %d:%02d", eta / 60, eta % 60));
            }
        } else {
            b.append(String.format("%,d packets %,.0f/s", packets, rate));
        }
        return b.toString();
    }

    double elapsedSeconds() {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    void printSummary(PrintStream err) {
        double s = elapsedSeconds();
        long read = metrics.read.sum();
        StringBuilder b = new StringBuilder();
        b.append(String.format("flowtrace agent: %s: %,d read, %,d published, %,d spooled, %,d replayed from spool, "
                        + "%,d dropped (spool full), %,d left in spool; %.2f s (%,.0f packets/s)", label, read,
                metrics.published.sum(), metrics.spooled.sum(), metrics.replayed.sum(), metrics.dropped.sum(),
                publisher.spoolPendingPackets(), s, s > 0 ? read / s : 0.0));
        if (!metrics.batchFlushes().isEmpty()) {
            b.append(String.format("%n  batches: %,d published, %,d spooled, %,d replayed from spool, %,d dropped, "
                            + "%,d records left in spool", metrics.publishedBatches.sum(), metrics.spooledBatches.sum(),
                    metrics.replayedBatches.sum(), metrics.droppedBatches.sum(), publisher.spoolPendingRecords()));
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
        counts.forEach((k, v) -> b.append(String.format(" %s %,d;", k, v)));
    }

    /** isatty(2) through JNA: System.console() says nothing about stderr alone. */
    static final class StderrTerminal {
        interface CLib extends Library {
            int isatty(int fd);
        }

        static boolean isTerminal() {
            try {
                return Native.load("c", CLib.class).isatty(2) == 1;
            } catch (UnsatisfiedLinkError | RuntimeException e) {
                return System.console() != null;
            }
        }
    }
}
