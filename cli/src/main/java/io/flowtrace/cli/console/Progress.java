package io.flowtrace.cli.console;

import io.flowtrace.cli.capture.CaptureInput;
import java.io.PrintStream;
import java.util.Locale;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * Reading progress of one capture on stderr, drawn by the progressbar library: percentage, speed and
 * ETA against the file's size (compressed bytes for .gz), a running byte count for standard input,
 * and the packets read. Only when stderr is a terminal, never with -q, and never on a terminal that
 * also receives the report as it is written (the bar would land inside report lines); the bar is
 * cleared before anything else is printed.
 */
public final class Progress implements AutoCloseable {
    private static final long MIB = 1L << 20;
    private final CaptureInput input;
    private final ProgressBar bar;
    private final long startNanos = System.nanoTime();

    private Progress(CaptureInput input, ProgressBar bar) {
        this.input = input;
        this.bar = bar;
    }

    /** @param streamsToTerminal the report goes to stdout while reading (JSON Lines, events) */
    public static Progress start(CaptureInput input, boolean quiet, boolean streamsToTerminal, PrintStream err) {
        boolean enabled = !quiet
                && Terminal.isTerminal(Terminal.STDERR)
                && !(streamsToTerminal && Terminal.isTerminal(Terminal.STDOUT));
        if (!enabled) {
            return new Progress(input, null);
        }
        return new Progress(input, bar(shortName(input.name()), input.size(), err));
    }

    /**
     * The bar analyze and the agents draw on stderr: against {@code bytes} (a file's size, so a
     * percentage and an ETA) or, when the size is not known (-1), a running count of MiB read.
     */
    public static ProgressBar bar(String task, long bytes, PrintStream err) {
        return bar(task, bytes, " MiB", MIB, err);
    }

    /** A bar over {@code max} units (-1: not known, no percentage), shown in {@code unit}s of {@code unitSize}. */
    public static ProgressBar bar(String task, long max, String unit, long unitSize, PrintStream err) {
        return new ProgressBarBuilder()
                .setTaskName(task)
                .setInitialMax(max > 0 ? max : -1)
                .setUnit(unit, unitSize)
                .showSpeed()
                .setStyle(ProgressBarStyle.ASCII)
                .setUpdateIntervalMillis(250)
                .setConsumer(new ConsoleProgressBarConsumer(err, Terminal.columns(Terminal.STDERR) - 1))
                .clearDisplayOnFinish()
                .build();
    }

    /** Called by the reader every 65,536 records. */
    public void update(long records) {
        if (bar != null) {
            bar.stepTo(input.bytesRead());
            bar.setExtraMessage(String.format(Locale.ROOT, "  %,d packets", records));
        }
    }

    /** Clears the bar (before the report or the summary is printed). */
    @Override
    public void close() {
        if (bar != null) {
            bar.close();
        }
    }

    public double elapsedSeconds() {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    public static String shortName(String file) {
        int slash = file.lastIndexOf('/');
        return slash >= 0 ? file.substring(slash + 1) : file;
    }
}
