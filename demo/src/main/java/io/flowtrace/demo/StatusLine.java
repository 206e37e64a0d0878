package io.flowtrace.demo;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarRenderer;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * The demo's progress on stderr, one {@link Step} at a time, drawn by the progressbar library as
 * analyze and the agents draw theirs (cli/src/main/java/io/flowtrace/cli/console/Progress.java). On a
 * terminal a step is redrawn in place (at most 4 times a second): a bar with percentage, speed and
 * ETA when its total is known (a file's bytes), else its elapsed time and figures; at its end the
 * library clears it and the step's final state is printed as a plain line in its place. Off a
 * terminal (CI, a pipe, a log) only those final lines; nothing with -q.
 */
final class StatusLine {
    private static final int REDRAW_MILLIS = 250;

    private final PrintStream err;
    private final boolean terminal;
    private final boolean quiet;
    private final int columns;

    /** {@code columns}: the terminal's width; the line is cut one short of it, so it never wraps. */
    StatusLine(PrintStream err, boolean terminal, boolean quiet, int columns) {
        this.err = err;
        this.terminal = terminal;
        this.quiet = quiet;
        this.columns = columns;
    }

    /** A step over {@code totalBytes} bytes: percentage, speed and ETA, its figures after the bar. */
    Step step(String task, long totalBytes) {
        return new Step(
                drawn()
                        ? builder(task)
                                .setInitialMax(Math.max(1, totalBytes))
                                .setUnit(" KiB", 1024)
                                .showSpeed()
                                .build()
                        : null);
    }

    /** A step of unknown length: its elapsed time and figures. */
    Step step(String task) {
        return new Step(
                drawn() ? builder(task).setInitialMax(-1).setRenderer(ELAPSED).build() : null);
    }

    private boolean drawn() {
        return terminal && !quiet;
    }

    private ProgressBarBuilder builder(String task) {
        return new ProgressBarBuilder()
                .setTaskName(task)
                .setStyle(ProgressBarStyle.ASCII)
                .setUpdateIntervalMillis(REDRAW_MILLIS)
                .continuousUpdate() // the elapsed time and the figures move between position changes too
                .setConsumer(new InPlace(err, columns - 1))
                .clearDisplayOnFinish();
    }

    /** "task  0:00:12  figures": a bar of an unknown total would only say "? %" and "0/?". */
    private static final ProgressBarRenderer ELAPSED = (state, width) -> {
        Duration d = state.getTotalElapsed();
        return String.format(
                Locale.ROOT,
                "%s  %d:%02d:%02d  %s",
                state.getTaskName(),
                d.toHours(),
                d.toMinutesPart(),
                d.toSecondsPart(),
                state.getExtraMessage());
    };

    /** One step: redrawn while it runs (on a terminal), its final state a plain line. */
    final class Step {
        private final ProgressBar bar;

        private Step(ProgressBar bar) {
            this.bar = bar;
        }

        /** The step is at {@code position} of its total; {@code figures} follow the bar. */
        void update(long position, String figures) {
            if (bar != null) {
                bar.stepTo(position);
                bar.setExtraMessage(figures);
            }
        }

        void update(String figures) {
            if (bar != null) {
                bar.setExtraMessage(figures);
            }
        }

        /** Ends the step: the bar is cleared and {@code line} printed in its place. */
        void done(String line) {
            if (bar != null) {
                bar.close();
            }
            if (!quiet) {
                err.println(line);
                err.flush();
            }
        }
    }

    /**
     * The library's console consumer without the newline it prints when a bar closes: the cleared
     * line takes the step's final line, so the steps do not leave blank lines between them.
     */
    private static final class InPlace extends ConsoleProgressBarConsumer {
        private final PrintStream stream;

        InPlace(PrintStream out, int width) {
            super(out, width);
            this.stream = out;
        }

        @Override
        public void close() {
            stream.flush();
        }
    }
}
