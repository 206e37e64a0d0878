package io.flowtrace.jobs.source;

import io.flowtrace.avro.DeadLetter;
import io.flowtrace.avro.PacketEvent;
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

    public static WatermarkStrategy<Either<DeadLetter, PacketEvent>> strategy(Duration outOfOrderness, Duration idleness) {
        WatermarkStrategy<Either<DeadLetter, PacketEvent>> strategy = WatermarkStrategy
                .<Either<DeadLetter, PacketEvent>>forBoundedOutOfOrderness(outOfOrderness)
                .withTimestampAssigner(new CaptureTime());
        return idleness.isZero() ? strategy : new PauseTolerantIdleness<>(strategy, idleness);
    }

    /**
     * A packet's capture time; a dead letter gets Long.MIN_VALUE, which never moves the watermark:
     * its capture time is unknown or absurd (that may be why it was rejected).
     */
    static final class CaptureTime implements SerializableTimestampAssigner<Either<DeadLetter, PacketEvent>> {
        private static final long serialVersionUID = 1L;

        @Override
        public long extractTimestamp(Either<DeadLetter, PacketEvent> element, long recordTimestamp) {
            return element.isRight() ? Math.floorDiv(element.right().getCaptureTimeNs(), 1_000_000L) : Long.MIN_VALUE;
        }
    }
}
