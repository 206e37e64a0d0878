package io.flowtrace.core.conntrack;

/**
 * Largest sum over any interval of a fixed length (to 1 ms resolution), in memory proportional to
 * the interval: a ring of 1 ms buckets. This is the receive-buffer fill a listener that stalls for
 * that long must absorb.
 */
final class SlidingPeak {
    private static final long RES = 1_000_000L;
    private final long[] buckets;
    private long newest = Long.MIN_VALUE;
    private long running;
    private long peak;

    SlidingPeak(long intervalNanos) {
        buckets = new long[(int) Math.max(1, (intervalNanos + RES - 1) / RES)];
    }

    void add(long timeNanos, long amount) {
        long b = Math.floorDiv(timeNanos, RES);
        if (newest == Long.MIN_VALUE) {
            newest = b;
        }
        if (b > newest) {
            long steps = Math.min(b - newest, buckets.length);
            for (long s = 1; s <= steps; s++) {
                int slot = (int) Math.floorMod(newest + s, (long) buckets.length);
                running -= buckets[slot];
                buckets[slot] = 0;
            }
            newest = b;
        } else if (b <= newest - buckets.length) {
            return; // older than the interval: cannot be in the same stall as the newest events
        }
        buckets[(int) Math.floorMod(b, (long) buckets.length)] += amount;
        running += amount;
        peak = Math.max(peak, running);
    }

    long peak() {
        return peak;
    }
}
