package io.flowtrace.jobs.input;

import io.flowtrace.avro.DeadLetter;
import io.flowtrace.jobs.conntrack.ConntrackSample;
import io.flowtrace.jobs.flow.FlowBatch;
import java.time.Duration;
import org.apache.flink.api.common.eventtime.SerializableTimestampAssigner;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkGeneratorSupplier;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.metrics.Counter;
import org.apache.flink.types.Either;

/**
 * Event time of the job's two inputs. Watermarks are generated per Kafka partition (the source runs
 * the strategy per split) with bounded out-of-orderness per vantage, the partition following its
 * slowest active vantage ({@link SlowestVantageWatermarks}: only validated packets and events move
 * it, never more than {@code maxFuture} ahead of the job's clock), and with idleness so that a quiet
 * partition does not stall every timer and window of the job, while an input pause of any length
 * makes nothing late ({@link PauseTolerantIdleness}). A dead letter's timestamp is
 * {@code Long.MIN_VALUE}, which never moves a watermark: its time is unknown or absurd (that may be
 * why it was rejected).
 */
public final class InputWatermarks {
    private static final long NANOS_PER_MS = 1_000_000L;

    private InputWatermarks() {}

    /**
     * Packets: a record's timestamp is its capture time in ms (a batch's: its header's base time,
     * {@code FlowBatch.timeMs}); what moves the watermark is the time of its earliest valid packet
     * ({@link PacketVantageTime}).
     */
    public static WatermarkStrategy<Either<DeadLetter, FlowBatch>> packets(
            Duration outOfOrderness, Duration idleness, Duration maxFuture) {
        return withIdleness(
                WatermarkStrategy.<Either<DeadLetter, FlowBatch>>forGenerator(
                                new Generators<>(new PacketVantageTime(), outOfOrderness, idleness, maxFuture))
                        .withTimestampAssigner(new CaptureTime()),
                idleness);
    }

    /**
     * Conntrack: the event's time in ms (the kernel's event timestamp when present, else the agent's
     * receive time; a loss report's time); per partition the slowest active vantage drives the
     * watermark ({@link SlowestVantageWatermarks}): a forged one cannot push it ahead.
     */
    public static WatermarkStrategy<Either<DeadLetter, ConntrackSample>> conntrack(
            Duration outOfOrderness, Duration idleness, Duration maxFuture) {
        return withIdleness(
                WatermarkStrategy.<Either<DeadLetter, ConntrackSample>>forGenerator(
                                new Generators<>(new SampleVantageTime(), outOfOrderness, idleness, maxFuture))
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

    /** A conntrack sample speaks for its vantage at its event time (validated by the source). */
    static final class SampleVantageTime implements VantageTime<ConntrackSample> {
        private static final long serialVersionUID = 1L;

        @Override
        public String vantage(ConntrackSample s) {
            return s.vantage();
        }

        @Override
        public long time(ConntrackSample s, long timestamp, long nowMs) {
            return timestamp;
        }
    }

    /**
     * One {@link SlowestVantageWatermarks} per split; the generators of a source subtask share its two
     * counters (created from the first split's context, in the task thread).
     */
    static final class Generators<T> implements WatermarkGeneratorSupplier<Either<DeadLetter, T>> {
        private static final long serialVersionUID = 1L;

        private final VantageTime<T> times;
        private final long outOfOrdernessMs;
        private final long idlenessMs;
        private final long maxFutureMs;
        private transient Counter futureSkipped;
        private transient Counter vantagesRefused;

        Generators(VantageTime<T> times, Duration outOfOrderness, Duration idleness, Duration maxFuture) {
            this.times = times;
            this.outOfOrdernessMs = outOfOrderness.toMillis();
            this.idlenessMs = idleness.toMillis();
            this.maxFutureMs = maxFuture.toMillis();
        }

        @Override
        public WatermarkGenerator<Either<DeadLetter, T>> createWatermarkGenerator(Context context) {
            if (futureSkipped == null) {
                futureSkipped = context.getMetricGroup().counter("watermarkFutureSkipped");
                vantagesRefused = context.getMetricGroup().counter("watermarkVantagesRefused");
            }
            return new SlowestVantageWatermarks<>(
                    times,
                    outOfOrdernessMs,
                    idlenessMs,
                    maxFutureMs,
                    System::currentTimeMillis,
                    futureSkipped,
                    vantagesRefused);
        }
    }
}
