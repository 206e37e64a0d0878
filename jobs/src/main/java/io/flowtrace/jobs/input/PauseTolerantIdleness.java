package io.flowtrace.jobs.input;

import java.time.Duration;
import org.apache.flink.api.common.eventtime.TimestampAssigner;
import org.apache.flink.api.common.eventtime.TimestampAssignerSupplier;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkGeneratorSupplier;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.util.clock.RelativeClock;

/**
 * A watermark strategy's idleness by {@link SplitIdleness} instead of
 * {@link WatermarkStrategy#withIdleness}: a quiet partition stops holding back event time while the
 * rest of its reader's input flows, but an input pause of any length holds event time where it is.
 * The source runs one generator per split and creates all of them from this (deserialized, per
 * subtask) instance in its task thread, which is how they share the reader's activity.
 */
public final class PauseTolerantIdleness<T> implements WatermarkStrategy<T> {
    private static final long serialVersionUID = 1L;

    private final WatermarkStrategy<T> base;
    private final long timeoutMs;
    private transient SplitIdleness.ReaderActivity reader;

    public PauseTolerantIdleness(WatermarkStrategy<T> base, Duration timeout) {
        this.base = base;
        this.timeoutMs = timeout.toMillis();
    }

    @Override
    public TimestampAssigner<T> createTimestampAssigner(TimestampAssignerSupplier.Context context) {
        return base.createTimestampAssigner(context);
    }

    @Override
    public WatermarkGenerator<T> createWatermarkGenerator(WatermarkGeneratorSupplier.Context context) {
        if (reader == null) {
            reader = new SplitIdleness.ReaderActivity();
        }
        // The input-activity clock stands still while the source is back-pressured (FLINK-35886):
        // a blocked source is not a quiet one.
        RelativeClock clock = context.getInputActivityClock();
        return new Generator<>(
                base.createWatermarkGenerator(context),
                new SplitIdleness(reader, timeoutMs, clock.relativeTimeMillis()),
                clock);
    }

    private static final class Generator<T> implements WatermarkGenerator<T> {
        private final WatermarkGenerator<T> watermarks;
        private final SplitIdleness idleness;
        private final RelativeClock clock;
        private boolean idle;

        Generator(WatermarkGenerator<T> watermarks, SplitIdleness idleness, RelativeClock clock) {
            this.watermarks = watermarks;
            this.idleness = idleness;
            this.clock = clock;
        }

        @Override
        public void onEvent(T event, long eventTimestamp, WatermarkOutput output) {
            idleness.record(clock.relativeTimeMillis());
            if (idle) {
                idle = false;
                output.markActive();
            }
            watermarks.onEvent(event, eventTimestamp, output);
        }

        @Override
        public void onPeriodicEmit(WatermarkOutput output) {
            if (idleness.idle(clock.relativeTimeMillis())) {
                if (!idle) {
                    idle = true;
                    output.markIdle();
                }
            } else {
                if (idle) {
                    idle = false;
                    output.markActive();
                }
                watermarks.onPeriodicEmit(output);
            }
        }
    }
}
