package io.flowtrace.jobs.source;

import io.flowtrace.avro.DeadLetter;
import io.flowtrace.jobs.conntrack.ConntrackSample;
import java.time.Duration;
import org.apache.flink.api.common.eventtime.SerializableTimestampAssigner;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.types.Either;

/**
 * Event time of the conntrack stream: the event's time in milliseconds (the kernel's event
 * timestamp when present, else the agent's receive time; a loss report's time), watermarks per Kafka
 * partition with the packet stream's out-of-orderness and idleness, following the partition's slowest
 * active vantage ({@link SlowestVantageWatermarks}). Dead letters never move it.
 */
public final class ConntrackTimeWatermarks {
    private ConntrackTimeWatermarks() {
    }

    public static WatermarkStrategy<Either<DeadLetter, ConntrackSample>> strategy(Duration outOfOrderness, Duration idleness) {
        // per partition, the slowest active vantage drives the watermark: a forged one cannot push it ahead
        long ooo = outOfOrderness.toMillis();
        long idle = idleness.toMillis();
        WatermarkStrategy<Either<DeadLetter, ConntrackSample>> strategy = WatermarkStrategy
                .<Either<DeadLetter, ConntrackSample>>forGenerator(c -> new SlowestVantageWatermarks(ooo, idle, System::currentTimeMillis))
                .withTimestampAssigner(new EventTime());
        return idleness.isZero() ? strategy : new PauseTolerantIdleness<>(strategy, idleness);
    }

    static final class EventTime implements SerializableTimestampAssigner<Either<DeadLetter, ConntrackSample>> {
        private static final long serialVersionUID = 1L;

        @Override
        public long extractTimestamp(Either<DeadLetter, ConntrackSample> element, long recordTimestamp) {
            return element.isRight() ? Math.floorDiv(element.right().timeNs, 1_000_000L) : Long.MIN_VALUE;
        }
    }
}
