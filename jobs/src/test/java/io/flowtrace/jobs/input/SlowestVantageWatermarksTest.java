package io.flowtrace.jobs.input;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.avro.DeadLetter;
import io.flowtrace.jobs.conntrack.ConntrackSample;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.types.Either;
import org.junit.jupiter.api.Test;

/**
 * One forged vantage a day ahead must not move the watermark of the honest ones in its partition,
 * nor a sample under an honest vantage's own name, nor a flood of new names (the job's defaults:
 * 2 s out-of-orderness, 60 s vantage idleness, 5 min future skew).
 */
class SlowestVantageWatermarksTest {
    private static final long T = 1_795_999_980_000L; // ms
    private static final long DAY = 86_400_000L;
    private static final long HOUR = 3_600_000L;
    private static final long MINUTE = 60_000L;

    private final SimpleCounter futureSkipped = new SimpleCounter();
    private final SimpleCounter vantagesRefused = new SimpleCounter();

    private long wallClock = T;
    private final List<Long> watermarks = new ArrayList<>();
    private final WatermarkOutput output = new WatermarkOutput() {
        @Override
        public void emitWatermark(Watermark w) {
            watermarks.add(w.getTimestamp());
        }

        @Override
        public void markIdle() {}

        @Override
        public void markActive() {}
    };

    @Test
    void aVantageADayAheadCannotPushTheWatermarkPastTheHonestOnes() {
        var g = generator(60_000);
        g.onEvent(sample("honest", T), T, output);
        g.onEvent(sample("forged", T + DAY), T + DAY, output);
        g.onPeriodicEmit(output);
        // the honest vantage's largest time minus 2 s out-of-orderness minus 1 (Flink's bounded rule)
        assertThat(watermarks).containsExactly(T - 2_001);

        wallClock += 10_000;
        g.onEvent(sample("honest", T + 10_000), T + 10_000, output);
        g.onPeriodicEmit(output);
        assertThat(watermarks).containsExactly(T - 2_001, T + 10_000 - 2_001);
    }

    @Test
    void aVantageSilentForTheIdleTimeStopsHoldingTheWatermarkBack() {
        var g = generator(60_000);
        g.onEvent(sample("gone", T), T, output);
        g.onEvent(sample("busy", T + 5_000), T + 5_000, output);
        g.onPeriodicEmit(output);
        assertThat(watermarks).containsExactly(T - 2_001);
        wallClock += 60_001; // "gone" silent for longer than 60 s; "busy" still sending
        g.onEvent(sample("busy", T + 65_000), T + 65_000, output);
        g.onPeriodicEmit(output);
        assertThat(watermarks).containsExactly(T - 2_001, T + 65_000 - 2_001);
    }

    @Test
    void deadLettersNeverMoveIt() {
        var g = generator(0);
        g.onEvent(Either.Left(new DeadLetter()), T + DAY, output);
        g.onPeriodicEmit(output);
        assertThat(watermarks).isEmpty();
    }

    @Test
    void aSampleADayAheadUnderTheHonestVantagesOwnNameMovesNothing() {
        var g = generator(60_000);
        g.onEvent(sample("honest", T), T, output);
        g.onEvent(sample("honest", T + 23 * HOUR), T + 23 * HOUR, output);
        g.onPeriodicEmit(output);
        assertThat(watermarks).containsExactly(T - 2_001);
        assertThat(futureSkipped.getCount()).isEqualTo(1);
        // within the 5 min cap a sample still moves its vantage: agents' clocks may be minutes apart
        g.onEvent(sample("honest", T + 4 * MINUTE), T + 4 * MINUTE, output);
        g.onPeriodicEmit(output);
        assertThat(watermarks).containsExactly(T - 2_001, T + 4 * MINUTE - 2_001);
    }

    @Test
    void tenThousandAndOneForgedNamesEvictNoHonestVantage() {
        var g = generator(60_000);
        g.onEvent(sample("honest", T), T, output);
        for (int i = 0; i <= 10_000; i++) {
            // within the future cap, so the cap alone does not stop them
            g.onEvent(sample("forged-" + i, T + 4 * MINUTE), T + 4 * MINUTE, output);
        }
        g.onPeriodicEmit(output);
        assertThat(watermarks).containsExactly(T - 2_001);
        // a burst of 1,000 admissions: the honest vantage and 999 names; the other 9,002 refused, counted
        assertThat(g.vantageCount()).isEqualTo(1_000);
        assertThat(vantagesRefused.getCount()).isEqualTo(10_001 - 999);

        wallClock += 10_000; // 10 s later: the honest vantage still drives the watermark, 100 more names admitted
        g.onEvent(sample("honest", T + 10_000), T + 10_000, output);
        for (int i = 10_001; i < 20_000; i++) {
            g.onEvent(sample("forged-" + i, T + 4 * MINUTE), T + 4 * MINUTE, output);
        }
        g.onPeriodicEmit(output);
        assertThat(watermarks).containsExactly(T - 2_001, T + 10_000 - 2_001);
        assertThat(g.vantageCount()).isEqualTo(1_000 + 100);
    }

    @Test
    void forgedNamesLeaveByIdlenessAndNewHonestOnesGetIn() {
        var g = generator(60_000);
        for (int i = 0; i < 1_000; i++) { // the whole burst
            g.onEvent(sample("forged-" + i, T), T, output);
        }
        g.onEvent(sample("late-honest", T), T, output);
        assertThat(vantagesRefused.getCount()).isEqualTo(1);
        wallClock += 60_001; // the forged names fall silent
        g.onPeriodicEmit(output);
        g.onEvent(sample("late-honest", T + 60_000), T + 60_000, output);
        g.onPeriodicEmit(output);
        assertThat(g.vantageCount()).isEqualTo(1);
        assertThat(watermarks).containsExactly(T + 60_000 - 2_001);
    }

    private SlowestVantageWatermarks<ConntrackSample> generator(long idleMs) {
        return new SlowestVantageWatermarks<>(
                new InputWatermarks.SampleVantageTime(),
                2_000,
                idleMs,
                5 * MINUTE,
                () -> wallClock,
                futureSkipped,
                vantagesRefused);
    }

    private static Either<DeadLetter, ConntrackSample> sample(String agent, long ms) {
        return Either.Right(
                ConntrackSample.event(agent, "ct", ms * 1_000_000L, ConntrackSample.NEW, 160, 516, 1000, true));
    }
}
