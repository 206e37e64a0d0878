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
    /** SplitMix64's increment (Steele, Lea, Flood 2014). */
    private static final long GOLDEN_GAMMA = 0x9e3779b97f4a7c15L;

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

    /**
     * Adds another reservoir's values: count, sum, extremes exactly; the sample stays a uniform sample
     * of the union. While both samples together fit, they are simply joined (exact: the percentiles
     * equal those of adding every value here). Otherwise {@code k = min(capacity, count + other.count)}
     * values are drawn without replacement, each from this side with probability (values of this side
     * not yet drawn) / (values of both sides not yet drawn), then uniformly among that side's sample
     * values not yet taken: the number drawn from each side is hypergeometric as for a uniform draw
     * from the union, and a uniform subset of a uniform sample is a uniform subset of its values
     * (both samples have at least k values of their side, as their capacity is at least this one's).
     * The draws come from a SplitMix64 sequence seeded by both reservoirs' counts and sums, so the same
     * merges give the same sample (the same rows on a replay), as {@link #add} does.
     */
    public void merge(SampleReservoir other) {
        if (other.count == 0) {
            return;
        }
        long n = Math.min(count, capacity);
        long m = Math.min(other.count, other.capacity);
        if (count == n && other.count == m && n + m <= capacity) {
            ensureSlots((int) (n + m));
            System.arraycopy(other.sample, 0, sample, (int) n, (int) m);
        } else {
            sample = drawFromBoth(other, (int) n, (int) m);
            // only a smaller other capacity (another --reservoir-size) leaves fewer: keep the sample whole
            if (sample.length < Math.min(capacity, count + other.count)) {
                capacity = sample.length;
            }
        }
        count += other.count;
        sum += other.sum;
        sumSquares += other.sumSquares;
        min = Double.isNaN(min) ? other.min : Math.min(min, other.min);
        max = Double.isNaN(max) ? other.max : Math.max(max, other.max);
    }

    private double[] drawFromBoth(SampleReservoir other, int n, int m) {
        double[] mine = Arrays.copyOf(sample, n);
        double[] theirs = Arrays.copyOf(other.sample, m);
        int k = (int) Math.min(Math.min(capacity, count + other.count), (long) n + m);
        double[] drawn = new double[k];
        long leftHere = count;
        long leftThere = other.count;
        long state = mix(count ^ Long.rotateLeft(other.count, 32) ^ Double.doubleToLongBits(sum + 3 * other.sum));
        for (int i = 0; i < k; i++) {
            state += GOLDEN_GAMMA;
            long r = mix(state);
            boolean here = n > 0 && (m == 0 || Long.remainderUnsigned(r, leftHere + leftThere) < leftHere);
            state += GOLDEN_GAMMA;
            long pick = mix(state);
            if (here) {
                int j = (int) Long.remainderUnsigned(pick, n);
                drawn[i] = mine[j];
                mine[j] = mine[--n];
                leftHere--;
            } else {
                int j = (int) Long.remainderUnsigned(pick, m);
                drawn[i] = theirs[j];
                theirs[j] = theirs[--m];
                leftThere--;
            }
        }
        return drawn;
    }

    private void ensureSlots(int needed) {
        if (sample.length < needed) {
            sample = Arrays.copyOf(sample, Math.min(capacity, Math.max(needed, Math.max(8, 2 * sample.length))));
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

    /** SplitMix64 finaliser (Steele, Lea, Flood 2014): a well-spread hash of the ordinal. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
