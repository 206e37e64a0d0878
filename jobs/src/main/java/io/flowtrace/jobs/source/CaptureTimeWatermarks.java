package io.flowtrace.jobs.source;

import io.flowtrace.avro.DeadLetter;
import io.flowtrace.jobs.flow.FlowBatch;
import java.time.Duration;
import org.apache.flink.api.common.eventtime.SerializableTimestampAssigner;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.types.Either;

/**
 * Event time of the packet stream: capture time in milliseconds, watermarks per Kafka partition
 * (the source runs the strategy per split) with bounded out-of-orderness, and idleness so that a
 * quiet partition does not stall every timer and window of the job, while an input pause of any
 * length makes nothing late ({@link PauseTolerantIdleness}).
 */
public final class CaptureTimeWatermarks {
    private CaptureTimeWatermarks() {
    }

    public static WatermarkStrategy<Either<DeadLetter, FlowBatch>> strategy(Duration outOfOrderness, Duration idleness) {
        WatermarkStrategy<Either<DeadLetter, FlowBatch>> strategy = WatermarkStrategy
                .<Either<DeadLetter, FlowBatch>>forBoundedOutOfOrderness(outOfOrderness)
                .withTimestampAssigner(new CaptureTime());
        return idleness.isZero() ? strategy : new PauseTolerantIdleness<>(strategy, idleness);
    }

    /**
     * A packet record's capture time (a batch's: its first packet's, FlowBatch.timeMs); a dead letter gets Long.MIN_VALUE, which never moves the watermark:
     * its capture time is unknown or absurd (that may be why it was rejected).
     */
    static final class CaptureTime implements SerializableTimestampAssigner<Either<DeadLetter, FlowBatch>> {
        private static final long serialVersionUID = 1L;

        @Override
        public long extractTimestamp(Either<DeadLetter, FlowBatch> element, long recordTimestamp) {
            return element.isRight() ? element.right().timeMs : Long.MIN_VALUE;
        }
    }
}
