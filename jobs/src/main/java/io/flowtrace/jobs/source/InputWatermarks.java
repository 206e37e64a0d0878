package io.flowtrace.jobs.source;

import io.flowtrace.avro.DeadLetter;
import io.flowtrace.jobs.conntrack.ConntrackSample;
import io.flowtrace.jobs.flow.FlowBatch;
import java.time.Duration;
import org.apache.flink.api.common.eventtime.SerializableTimestampAssigner;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.types.Either;

/**
 * Event time of the job's two inputs. Watermarks are generated per Kafka partition (the source runs
 * the strategy per split) with bounded out-of-orderness, and with idleness so that a quiet partition
 * does not stall every timer and window of the job, while an input pause of any length makes
 * nothing late ({@link PauseTolerantIdleness}). A dead letter's timestamp is {@code Long.MIN_VALUE},
 * which never moves a watermark: its time is unknown or absurd (that may be why it was rejected).
 */
public final class InputWatermarks {
    private static final long NANOS_PER_MS = 1_000_000L;

    private InputWatermarks() {}

    /** Packets: capture time in ms (a batch's: its first packet's, {@code FlowBatch.timeMs}). */
    public static WatermarkStrategy<Either<DeadLetter, FlowBatch>> packets(Duration outOfOrderness, Duration idleness) {
        return withIdleness(
                WatermarkStrategy.<Either<DeadLetter, FlowBatch>>forBoundedOutOfOrderness(outOfOrderness)
                        .withTimestampAssigner(new CaptureTime()),
                idleness);
    }

    /**
     * Conntrack: the event's time in ms (the kernel's event timestamp when present, else the agent's
     * receive time; a loss report's time); per partition the slowest active vantage drives the
     * watermark ({@link SlowestVantageWatermarks}): a forged one cannot push it ahead.
     */
    public static WatermarkStrategy<Either<DeadLetter, ConntrackSample>> conntrack(
            Duration outOfOrderness, Duration idleness) {
        long ooo = outOfOrderness.toMillis();
        long idle = idleness.toMillis();
        return withIdleness(
                WatermarkStrategy.<Either<DeadLetter, ConntrackSample>>forGenerator(
                                c -> new SlowestVantageWatermarks(ooo, idle, System::currentTimeMillis))
                        .withTimestampAssigner(new EventTime()),
                idleness);
    }

    private static <T> WatermarkStrategy<T> withIdleness(WatermarkStrategy<T> strategy, Duration idleness) {
        return idleness.isZero() ? strategy : new PauseTolerantIdleness<>(strategy, idleness);
    }

    static final class CaptureTime implements SerializableTimestampAssigner<Either<DeadLetter, FlowBatch>> {
        private static final long serialVersionUID = 1L;

        @Override
        public long extractTimestamp(Either<DeadLetter, FlowBatch> element, long recordTimestamp) {
            return element.isRight() ? element.right().timeMs : Long.MIN_VALUE;
        }
    }

    static final class EventTime implements SerializableTimestampAssigner<Either<DeadLetter, ConntrackSample>> {
        private static final long serialVersionUID = 1L;

        @Override
        public long extractTimestamp(Either<DeadLetter, ConntrackSample> element, long recordTimestamp) {
            return element.isRight() ? Math.floorDiv(element.right().timeNs, NANOS_PER_MS) : Long.MIN_VALUE;
        }
    }
}
