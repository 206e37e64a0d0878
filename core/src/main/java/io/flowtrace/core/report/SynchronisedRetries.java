package io.flowtrace.core.report;

import java.util.Arrays;

/**
 * Timer-driven retries at one server, and how many fell within {@link #WINDOW_NANOS} of a retry of
 * another owner (flow or session): synchronised retries, what OpenVPN's reliable_unique_retry() tries
 * to avoid by spreading the retries of one process over distinct seconds. Holds the first
 * {@link #MAX_RETRIES} retries; later ones are not counted.
 */
public final class SynchronisedRetries {
    /** Retries of different owners this close together count as synchronised (as for TCP SYNs). */
    public static final long WINDOW_NANOS = 5_000_000L;
    /** Retries held per server; bounds memory per server. */
    public static final int MAX_RETRIES = 100_000;

    private long[] times = new long[16];
    private long[] owners = new long[16];
    private int n;

    /** A retry whose owner is its own: synchronised with any other retry within the window. */
    public void add(long timeNanos) {
        add(timeNanos, -1L - n);
    }

    /** A retry of {@code owner} (a non-negative index); ignored once {@link #MAX_RETRIES} are held. */
    public void add(long timeNanos, long owner) {
        if (n >= MAX_RETRIES) {
            return;
        }
        if (n == times.length) {
            times = Arrays.copyOf(times, n * 2);
            owners = Arrays.copyOf(owners, n * 2);
        }
        times[n] = timeNanos;
        owners[n++] = owner;
    }

    /** Retries with a retry of another owner within {@link #WINDOW_NANOS}. */
    public long count() {
        long[][] r = new long[n][];
        for (int i = 0; i < n; i++) {
            r[i] = new long[] {times[i], owners[i]};
        }
        Arrays.sort(r, (a, b) -> Long.compare(a[0], b[0]));
        long count = 0;
        for (int i = 0; i < r.length; i++) {
            boolean near = false;
            for (int j = i - 1; j >= 0 && r[i][0] - r[j][0] <= WINDOW_NANOS && !near; j--) {
                near = r[j][1] != r[i][1];
            }
            for (int j = i + 1; j < r.length && r[j][0] - r[i][0] <= WINDOW_NANOS && !near; j++) {
                near = r[j][1] != r[i][1];
            }
            if (near) {
                count++;
            }
        }
        return count;
    }
}
