package io.flowtrace.core.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Merging reservoirs (the job's windows pre-aggregate per upstream task and merge the partials):
 * exact while the values fit, and a uniform sample of the union when they do not. The expected
 * values are hand calculations from the inputs written here, never read from the code under test.
 */
class SampleReservoirTest {

    private static SampleReservoir of(int capacity, double... values) {
        SampleReservoir r = new SampleReservoir(capacity);
        for (double v : values) {
            r.add(v);
        }
        return r;
    }

    @Test
    void mergingWhatFitsKeepsEveryValue() {
        SampleReservoir a = of(8, 5, 1, 9);
        a.merge(of(8, 2, 7));
        a.merge(new SampleReservoir(8));

        assertThat(a.count).isEqualTo(5);
        assertThat(a.sum).isEqualTo(24.0);
        assertThat(a.sumSquares).isEqualTo(25 + 1 + 81 + 4 + 49);
        assertThat(a.min).isEqualTo(1.0);
        assertThat(a.max).isEqualTo(9.0);
        // nearest rank over 1 2 5 7 9: p50 is the 3rd value, p90 and p99 the 5th
        assertThat(a.percentile(50)).isEqualTo(5.0);
        assertThat(a.percentile(90)).isEqualTo(9.0);
        assertThat(a.percentile(20)).isEqualTo(1.0);
    }

    @Test
    void mergingIntoAnEmptyReservoirGivesTheSameFigures() {
        SampleReservoir full = new SampleReservoir(4);
        for (int i = 1; i <= 10; i++) {
            full.add(i);
        }
        SampleReservoir empty = new SampleReservoir(4);
        empty.merge(full);

        assertThat(empty.count).isEqualTo(10);
        assertThat(empty.sum).isEqualTo(55.0);
        assertThat(empty.min).isEqualTo(1.0);
        assertThat(empty.max).isEqualTo(10.0);
        double[] before = Arrays.copyOf(full.sample, 4);
        double[] after = Arrays.copyOf(empty.sample, 4);
        Arrays.sort(before);
        Arrays.sort(after);
        assertThat(after).containsExactly(before);
    }

    /**
     * A side of 3,000 values and one of 1,000, capacity 100, merged 2,000 times with shifted values
     * (another seed each time): the number drawn from the big side is hypergeometric, mean 100 × 3/4
     * = 75 and variance 100 × 3/4 × 1/4 × (4000 − 100)/(4000 − 1) = 18.30; and each of the big side's
     * 100 sampled values is drawn equally often (chi-square over its 100 slots, 99 degrees of freedom:
     * 99 ± 14 expected, 160 is beyond p = 10⁻⁴).
     */
    @Test
    void aMergeDrawsAUniformSampleOfTheUnion() {
        int trials = 2000;
        double fromBig = 0;
        double fromBigSquares = 0;
        long[] slotDrawn = new long[100];
        for (int t = 0; t < trials; t++) {
            double shift = t * 1e7;
            SampleReservoir big = new SampleReservoir(100);
            for (int i = 0; i < 3000; i++) {
                big.add(shift + i);
            }
            SampleReservoir small = new SampleReservoir(100);
            for (int i = 0; i < 1000; i++) {
                small.add(shift + 1e6 + i);
            }
            double[] bigSlots = Arrays.copyOf(big.sample, 100);
            big.merge(small);

            assertThat(big.count).isEqualTo(4000);
            int n = 0;
            for (double v : Arrays.copyOf(big.sample, 100)) {
                if (v < shift + 1e6) {
                    n++;
                    for (int s = 0; s < 100; s++) {
                        if (bigSlots[s] == v) {
                            slotDrawn[s]++;
                        }
                    }
                }
            }
            fromBig += n;
            fromBigSquares += (double) n * n;
        }
        double mean = fromBig / trials;
        double variance = fromBigSquares / trials - mean * mean;
        // the mean of 2,000 draws: standard error sqrt(18.30 / 2000) = 0.096
        assertThat(mean).isCloseTo(75.0, within(0.5));
        assertThat(variance).isCloseTo(18.30, within(3.0));
        double expected = fromBig / 100.0;
        double chiSquare = 0;
        for (long drawn : slotDrawn) {
            chiSquare += (drawn - expected) * (drawn - expected) / expected;
        }
        assertThat(chiSquare).isLessThan(160.0);
    }

    /**
     * Ten partials of 1,000 values each (capacity 50) merged one after the other, as a window merges
     * its upstream tasks' partials: each partial ends up with a tenth of the sample, 5 values on
     * average over 500 trials (a valid sample of the union; joining samples unweighted would give the
     * last partial up to all 50).
     */
    @Test
    void successiveMergesWeighEveryPartialByItsCount() {
        int trials = 500;
        double[] perPartial = new double[10];
        for (int t = 0; t < trials; t++) {
            SampleReservoir window = new SampleReservoir(50);
            for (int p = 0; p < 10; p++) {
                SampleReservoir partial = new SampleReservoir(50);
                for (int i = 0; i < 1000; i++) {
                    partial.add(t * 1e6 + p * 1000 + i);
                }
                window.merge(partial);
            }
            assertThat(window.count).isEqualTo(10_000);
            for (double v : Arrays.copyOf(window.sample, 50)) {
                perPartial[(int) ((v - t * 1e6) / 1000)]++;
            }
        }
        for (double drawn : perPartial) {
            // 5 per trial; over 500 trials sd ≈ sqrt(500 × 50 × 0.1 × 0.9) / 500 = 0.095
            assertThat(drawn / trials).isCloseTo(5.0, within(0.5));
        }
    }

    @Test
    void theSameMergesGiveTheSameSample() {
        SampleReservoir a1 = new SampleReservoir(10);
        SampleReservoir a2 = new SampleReservoir(10);
        SampleReservoir b = new SampleReservoir(10);
        for (int i = 0; i < 100; i++) {
            a1.add(i);
            a2.add(i);
            b.add(1000 + i);
        }
        a1.merge(b);
        a2.merge(b);
        assertThat(a1.sample).containsExactly(a2.sample);
    }
}
