package io.flowtrace.core.report;

import java.util.Arrays;

/**
 * Setup times (ns) of one server, the samples its setup table's mean, sd and percentiles are taken
 * from: the first {@link #MAX_SAMPLES} are kept exactly, later ones dropped (OpenVPN's server
 * table; the TCP service table samples beyond with a {@link SampleReservoir}). Percentiles are
 * nearest-rank ({@link SampleReservoir#nearestRankIndex}), reported in microseconds.
 */
public final class SetupTimeStats {
    /** Setup times held per server; bounds memory per server, exact percentiles up to it. */
    public static final int MAX_SAMPLES = 100_000;

    private long[] samples = new long[16];
    private int n;

    /** Keeps the setup time while fewer than {@link #MAX_SAMPLES} are held; false once full. */
    public boolean add(long nanos) {
        if (n >= MAX_SAMPLES) {
            return false;
        }
        if (n == samples.length) {
            samples = Arrays.copyOf(samples, n * 2);
        }
        samples[n++] = nanos;
        return true;
    }

    /** A sorted copy of the held samples. */
    public long[] sorted() {
        long[] sorted = Arrays.copyOf(samples, n);
        Arrays.sort(sorted);
        return sorted;
    }

    /** Mean in nanoseconds; NaN without samples. */
    public static double mean(long[] values) {
        double sum = 0;
        for (long v : values) {
            sum += v;
        }
        return values.length == 0 ? Double.NaN : sum / values.length;
    }

    /** Sample standard deviation (n - 1) in nanoseconds, as a run-to-run comparison reports it; NaN below two samples. */
    public static double sampleSd(long[] values, double mean) {
        double sq = 0;
        for (long v : values) {
            sq += (v - mean) * (v - mean);
        }
        return values.length < 2 ? Double.NaN : Math.sqrt(sq / (values.length - 1));
    }

    /** Nearest-rank percentile in microseconds; NaN without samples. */
    public static double percentileUs(long[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        return sorted[SampleReservoir.nearestRankIndex(sorted.length, p)] / 1000.0;
    }
}
