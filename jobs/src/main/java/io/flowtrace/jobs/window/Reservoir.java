package io.flowtrace.jobs.window;

import java.util.Arrays;

/**
 * Count, mean, standard deviation and extremes of every value, plus percentiles from a bounded
 * sample: exact while a window has at most {@code capacity} values, then a uniform sample
 * (Vitter's algorithm R) so a window's state stays bounded however many flows it sees. The
 * replacement choice is a hash of the value's ordinal, not a random generator: a replay of the
 * same input gives the same percentiles, so the upserted rows do not change. A Flink POJO.
 */
public final class Reservoir {
    public long count;
    public double sum;
    public double sumSquares;
    public double min = Double.NaN;
    public double max = Double.NaN;
    public double[] sample = new double[0];
    public int capacity;

    public Reservoir() {
    }

    public Reservoir(int capacity) {
        this.capacity = capacity;
    }

    public void add(double value) {
        if (Double.isNaN(value)) {
            return;
        }
        if (count < capacity) {
            if (sample.length == count) {
                sample = Arrays.copyOf(sample, (int) Math.min(capacity, Math.max(8, 2 * count)));
            }
            sample[(int) count] = value;
        } else {
            long slot = Long.remainderUnsigned(mix(count), count + 1);
            if (slot < capacity) {
                sample[(int) slot] = value;
            }
        }
        count++;
        sum += value;
        sumSquares += value * value;
        min = Double.isNaN(min) ? value : Math.min(min, value);
        max = Double.isNaN(max) ? value : Math.max(max, value);
    }

    /** Adds another window pane's values (exact moments; the sample keeps what fits). */
    public void merge(Reservoir other) {
        long keep = count;
        for (int i = 0; i < Math.min(other.count, other.capacity); i++) {
            add(other.sample[i]);
        }
        long sampled = Math.min(other.count, other.capacity);
        count = keep + other.count;
        sum += other.sum - sumOf(other, sampled);
        sumSquares += other.sumSquares - sumSquaresOf(other, sampled);
        if (!Double.isNaN(other.min)) {
            min = Double.isNaN(min) ? other.min : Math.min(min, other.min);
            max = Double.isNaN(max) ? other.max : Math.max(max, other.max);
        }
    }

    public double mean() {
        return count == 0 ? Double.NaN : sum / count;
    }

    /** Population standard deviation (the flows of the window are the population). */
    public double sd() {
        if (count == 0) {
            return Double.NaN;
        }
        double m = mean();
        return Math.sqrt(Math.max(0.0, sumSquares / count - m * m));
    }

    /** Nearest-rank percentile (0 < p <= 100) of the sample; NaN when empty. */
    public double percentile(double p) {
        int n = (int) Math.min(count, capacity);
        if (n == 0) {
            return Double.NaN;
        }
        double[] sorted = Arrays.copyOf(sample, n);
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(p / 100.0 * n);
        return sorted[Math.max(0, Math.min(n, rank) - 1)];
    }

    private static double sumOf(Reservoir r, long n) {
        double s = 0;
        for (int i = 0; i < n; i++) {
            s += r.sample[i];
        }
        return s;
    }

    private static double sumSquaresOf(Reservoir r, long n) {
        double s = 0;
        for (int i = 0; i < n; i++) {
            s += r.sample[i] * r.sample[i];
        }
        return s;
    }

    /** SplitMix64 finaliser (Steele, Lea, Flood 2014): a well-spread hash of the ordinal. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
