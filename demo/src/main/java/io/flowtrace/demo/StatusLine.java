package io.flowtrace.demo;

import java.io.PrintStream;

/**
 * Progress on stderr. On a terminal one line is redrawn in place (at most 4 times a second);
 * otherwise (CI, a pipe, a test) only the final state of each step is printed, one line each.
 */
final class StatusLine {
    private static final int BAR_WIDTH = 28;
    private final PrintStream err;
    private final boolean terminal;
    private final boolean quiet;
    private long lastDrawNanos;
    private boolean drawn;

    StatusLine(PrintStream err, boolean terminal, boolean quiet) {
        this.err = err;
        this.terminal = terminal;
        this.quiet = quiet;
    }

    /** Redraws the in-place line (terminals only). */
    synchronized void update(String text) {
        if (quiet || !terminal) {
            return;
        }
        long now = System.nanoTime();
        if (drawn && now - lastDrawNanos < 250_000_000L) {
            return;
        }
        lastDrawNanos = now;
        err.print("\r\033[K" + text);
        err.flush();
        drawn = true;
    }

    /** Ends the step: its final state as a permanent line. */
    synchronized void done(String text) {
        if (quiet) {
            return;
        }
        if (drawn) {
            err.print("\r\033[K");
            drawn = false;
        }
        err.println(text);
        err.flush();
    }

    /** A bar like {@code [########............]  42 %}. */
    static String bar(double fraction) {
        double f = Math.max(0, Math.min(1, fraction));
        int filled = (int) Math.round(f * BAR_WIDTH);
        return "[" + "#".repeat(filled) + ".".repeat(BAR_WIDTH - filled) + "] " + String.format("%3.0f %%", f * 100);
    }
}
