package io.flowtrace.core.flow;

/**
 * When the offline tracker looks for idle flows: after the first packet at least one second of
 * capture time past the previous sweep (the first packet starts the clock). One class, so a
 * sharded analysis decides the sweeps on its reader exactly where a single tracker would.
 */
public final class SweepClock {
    static final long INTERVAL_NANOS = 1_000_000_000L;

    private long lastSweepNanos = Long.MIN_VALUE;

    /** Ticks with the next TCP packet's time; true when a sweep is due after that packet. */
    public boolean due(long t) {
        if (lastSweepNanos == Long.MIN_VALUE) {
            lastSweepNanos = t; // t - MIN_VALUE would overflow
            return false;
        }
        if (t - lastSweepNanos >= INTERVAL_NANOS) {
            lastSweepNanos = t;
            return true;
        }
        return false;
    }
}
