package io.flowtrace.core.openvpn;

/** Count, min, mean and max of microsecond samples, in O(1) memory. */
public final class LatencyStats {
    long samples;
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    double sum;

    public void add(long us) {
        samples++;
        min = Math.min(min, us);
        max = Math.max(max, us);
        sum += us;
    }

    public long samples() {
        return samples;
    }

    /** -1 without samples. */
    public long min() {
        return samples == 0 ? -1 : min;
    }

    /** -1 without samples. */
    public long max() {
        return samples == 0 ? -1 : max;
    }

    /** NaN without samples. */
    public double mean() {
        return samples == 0 ? Double.NaN : sum / samples;
    }
}
