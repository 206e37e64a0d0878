package io.flowtrace.core.report;

import java.util.Arrays;

/**
 * Count, mean, standard deviation and extremes of every value, plus percentiles from a bounded
 * sample: exact while at most {@code capacity} values were added, then a uniform sample (Vitter's
 * algorithm R) so memory stays bounded however many values arrive. The replacement choice is a hash
 * of the value's ordinal, not a random generator: the same input gives the same percentiles, so a
 * replayed window upserts the same rows and two runs of {@code analyze} print the same table.
 *
 * <p>The one sampling and percentile implementation of flowtrace: the job's windows
 * (jobs/window/Reservoir is this class under the name its savepoints know) and the
 * {@code analyze --services} table. Public fields and a no-argument constructor, so the job's
 * Flink POJO serializer handles it; no Flink import.
 */
public class SampleReservoir {
    public long count;
    public double sum;
    public double sumSquares;
    public double min = Double.NaN;
    public double max = Double.NaN;
    public double[] sample = new double[0];
    public int capacity;

    public SampleReservoir() {}

    public SampleReservoir(int capacity) {
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

    /** Adds another reservoir's values (exact moments; the sample keeps what fits). */
    public void merge(SampleReservoir other) {
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

    /** Population standard deviation (the values seen are the population); NaN when empty. */
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
        return sorted[nearestRankIndex(n, p)];
    }

    /**
     * The index in a sorted array of {@code n} values of its nearest-rank percentile {@code p}
     * (0 < p <= 100): the smallest value with at least p % of the values at or below it.
     */
    public static int nearestRankIndex(int n, double p) {
        int rank = (int) Math.ceil(p / 100.0 * n);
        return Math.max(0, Math.min(n, rank) - 1);
    }

    private static double sumOf(SampleReservoir r, long n) {
        double s = 0;
        for (int i = 0; i < n; i++) {
            s += r.sample[i];
        }
        return s;
    }

    private static double sumSquaresOf(SampleReservoir r, long n) {
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
