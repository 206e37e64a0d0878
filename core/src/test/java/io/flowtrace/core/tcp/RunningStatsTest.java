package io.flowtrace.core.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * The RTT statistics (docs/metrics.md {@code rtt.*}) on sample sets whose count, min, max, mean and
 * population standard deviation are worked out by hand here (the deviation as tcptrace reports RTT
 * stdev: sqrt(sum (x - mean)^2 / n)).
 */
class RunningStatsTest {

    /**
     * 2, 4, 4, 4, 5, 5, 7, 9: sum 40, n 8, mean 5; squared deviations 9+1+1+1+0+0+4+16 = 32, so
     * m2 = 32 and the population deviation sqrt(32 / 8) = 2. Min 2 comes first and max 9 last.
     */
    @Test
    void eightSamplesGiveMeanFiveAndDeviationTwo() {
        RunningStats s = stats(2, 4, 4, 4, 5, 5, 7, 9);
        assertThat(s.count()).isEqualTo(8);
        assertThat(s.min()).isEqualTo(2);
        assertThat(s.max()).isEqualTo(9);
        assertThat(s.mean()).isEqualTo(5.0);
        assertThat(s.m2()).isEqualTo(32.0);
        assertThat(s.stdev()).isEqualTo(2.0);
    }

    /**
     * Min and max in the middle of the stream, after a larger first and a smaller first sample:
     * 300, 100, 500, 200: min 100, max 500, mean 1100 / 4 = 275; deviations 25, -175, 225, -75,
     * squares 625 + 30625 + 50625 + 5625 = 87500; stdev sqrt(87500 / 4) = sqrt(21875) = 147.902...
     */
    @Test
    void minAndMaxAreTakenFromAnywhereInTheStream() {
        RunningStats s = stats(300, 100, 500, 200);
        assertThat(s.min()).isEqualTo(100);
        assertThat(s.max()).isEqualTo(500);
        assertThat(s.mean()).isEqualTo(275.0);
        assertThat(s.m2()).isCloseTo(87500.0, within(1e-9));
        assertThat(s.stdev()).isCloseTo(Math.sqrt(21875), within(1e-9));
    }

    /**
     * Two samples are the first with a deviation: 1 and 3, mean 2, each 1 away: sqrt(2 / 2) = 1. One
     * sample has none (0), and no sample reports 0 for every figure, not the sentinels.
     */
    @Test
    void twoSamplesAreTheFirstWithADeviationAndNoSamplesReportZeros() {
        RunningStats two = stats(1, 3);
        assertThat(two.stdev()).isEqualTo(1.0);
        assertThat(two.mean()).isEqualTo(2.0);

        RunningStats one = stats(7);
        assertThat(one.stdev()).isZero();
        assertThat(one.min()).isEqualTo(7);
        assertThat(one.max()).isEqualTo(7);
        assertThat(one.mean()).isEqualTo(7.0);

        RunningStats none = new RunningStats();
        assertThat(none.count()).isZero();
        assertThat(none.min()).isZero();
        assertThat(none.max()).isZero();
        assertThat(none.mean()).isZero();
        assertThat(none.stdev()).isZero();
    }

    /**
     * Restored from saved figures (flow state after a restart), it goes on from them: 3 samples with
     * min 10, max 30, mean 20 and m2 200 (10, 20, 30), plus 40: n 4, mean 25, m2 = 200 + (40 - 20)
     * x (40 - 25) = 500 (Welford), stdev sqrt(500 / 4) = sqrt(125). Restored empty, the first sample
     * is both min and max, whatever figures came with the count of 0.
     */
    @Test
    void restoredStatsContinueFromTheSavedFigures() {
        RunningStats s = new RunningStats();
        s.restore(3, 10, 30, 20.0, 200.0);
        assertThat(s.min()).isEqualTo(10);
        assertThat(s.max()).isEqualTo(30);
        s.add(40);
        assertThat(s.count()).isEqualTo(4);
        assertThat(s.min()).isEqualTo(10);
        assertThat(s.max()).isEqualTo(40);
        assertThat(s.mean()).isEqualTo(25.0);
        assertThat(s.m2()).isEqualTo(500.0);
        assertThat(s.stdev()).isEqualTo(Math.sqrt(125));

        RunningStats empty = new RunningStats();
        empty.restore(0, 1, 2, 0, 0);
        empty.add(50);
        assertThat(empty.min()).isEqualTo(50);
        assertThat(empty.max()).isEqualTo(50);
    }

    /** Written and read back, every figure is the same (the 2, 4, ..., 9 set above), and so is an empty one. */
    @Test
    void aRoundTripKeepsEveryFigure() throws IOException {
        RunningStats back = roundTrip(stats(2, 4, 4, 4, 5, 5, 7, 9));
        assertThat(back.count()).isEqualTo(8);
        assertThat(back.min()).isEqualTo(2);
        assertThat(back.max()).isEqualTo(9);
        assertThat(back.mean()).isEqualTo(5.0);
        assertThat(back.stdev()).isEqualTo(2.0);

        RunningStats empty = roundTrip(new RunningStats());
        empty.add(-3);
        assertThat(empty.min()).isEqualTo(-3);
        assertThat(empty.max()).isEqualTo(-3);
    }

    private static RunningStats stats(long... samples) {
        RunningStats s = new RunningStats();
        for (long x : samples) {
            s.add(x);
        }
        return s;
    }

    private static RunningStats roundTrip(RunningStats s) throws IOException {
        RunningStats back = new RunningStats();
        back.read(StateBytes.written(s::write));
        return back;
    }
}
