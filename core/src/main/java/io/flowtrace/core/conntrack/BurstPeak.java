package io.flowtrace.core.conntrack;

import java.util.Arrays;

/**
 * Largest sum of a quantity within one sub-window (tumbling, aligned to multiples of its length).
 * A small ring of recent sub-windows takes slightly late events; older ones count as late.
 */
final class BurstPeak {
    private static final int RING = 64;
    private final long width;
    private final long[] index = new long[RING];
    private final long[] sum = new long[RING];
    private long peak;
    private long newest = Long.MIN_VALUE;
    private long late;

    BurstPeak(long widthNanos) {
        this.width = widthNanos;
        Arrays.fill(index, Long.MIN_VALUE);
    }

    void add(long timeNanos, long amount) {
        long w = Math.floorDiv(timeNanos, width);
        if (newest != Long.MIN_VALUE && w <= newest - RING) {
            late++;
            return;
        }
        newest = Math.max(newest, w);
        int slot = (int) Math.floorMod(w, (long) RING);
        if (index[slot] != w) {
            index[slot] = w;
            sum[slot] = 0;
        }
        sum[slot] += amount;
        peak = Math.max(peak, sum[slot]);
    }

    long peak() {
        return peak;
    }

    long late() {
        return late;
    }
}
