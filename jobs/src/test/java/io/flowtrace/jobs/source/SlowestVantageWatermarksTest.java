package io.flowtrace.jobs.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.avro.DeadLetter;
import io.flowtrace.jobs.conntrack.ConntrackSample;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.types.Either;
import org.junit.jupiter.api.Test;

/** One forged vantage a day ahead must not move the watermark of the honest ones in its partition. */
class SlowestVantageWatermarksTest {
    private static final long T = 1_795_999_980_000L; // ms
    private static final long DAY = 86_400_000L;

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
        var g = new SlowestVantageWatermarks(2_000, 60_000, () -> wallClock);
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
        var g = new SlowestVantageWatermarks(2_000, 60_000, () -> wallClock);
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
        var g = new SlowestVantageWatermarks(2_000, 0, () -> wallClock);
        g.onEvent(Either.Left(new DeadLetter()), T + DAY, output);
        g.onPeriodicEmit(output);
        assertThat(watermarks).isEmpty();
    }

    private static Either<DeadLetter, ConntrackSample> sample(String agent, long ms) {
        return Either.Right(
                ConntrackSample.event(agent, "ct", ms * 1_000_000L, ConntrackSample.NEW, 160, 516, 1000, true));
    }
}
