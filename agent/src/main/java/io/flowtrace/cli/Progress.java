package io.flowtrace.cli;

/**
 * A one-line progress display on stderr (records and records/s), redrawn at most twice a second,
 * only when stderr is a terminal and not in quiet mode.
 */
final class Progress {
    private final String label;
    private final boolean enabled;
    private final long startNanos = System.nanoTime();
    private long lastDrawNanos;
    private boolean drawn;

    Progress(String label, boolean quiet) {
        this.label = label;
        this.enabled = !quiet && System.console() != null;
    }

    void update(long records) {
        if (!enabled) {
            return;
        }
        long now = System.nanoTime();
        if (now - lastDrawNanos < 500_000_000L) {
            return;
        }
        lastDrawNanos = now;
        double s = (now - startNanos) / 1e9;
        System.err.printf("\r%s: %,d packets, %,.0f packets/s   ", label, records, s > 0 ? records / s : 0.0);
        drawn = true;
    }

    void done() {
        if (drawn) {
            System.err.print("\r\033[K");
        }
    }

    double elapsedSeconds() {
        return (System.nanoTime() - startNanos) / 1e9;
    }
}
