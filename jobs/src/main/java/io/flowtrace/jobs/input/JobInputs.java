package io.flowtrace.jobs.input;

import io.flowtrace.avro.DeadLetter;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.types.Either;

/**
 * One input of the job, the same three steps for packets and conntrack events: the source with its
 * per-partition watermarks (uid {@code NAME-source}), the final watermark at end of input
 * ({@code NAME-end-of-input}), and the triage that passes valid records on and puts the dead
 * letters in its {@link InputTriage#DEAD_LETTERS} side output. Operator uids are fixed: savepoints
 * map state by them.
 */
public final class JobInputs {
    private JobInputs() {}

    /**
     * @param name the source's name ("packets", "conntrack")
     * @param triage the uid and name of the triage operator
     */
    public static <T> SingleOutputStreamOperator<T> validated(
            StreamExecutionEnvironment env,
            Source<Either<DeadLetter, T>, ?, ?> source,
            WatermarkStrategy<Either<DeadLetter, T>> watermarks,
            String name,
            String triage) {
        DataStream<Either<DeadLetter, T>> input =
                endOfInputWatermark(env.fromSource(source, watermarks, name).uid(name + "-source"), name);
        return input.process(InputTriage.of(input.getType())).name(triage).uid(triage);
    }

    /** The final watermark at end of input, even from a source that was idle then ({@link EndOfInputWatermark}). */
    private static <T> DataStream<T> endOfInputWatermark(DataStream<T> source, String name) {
        return source.transform(name + "-end-of-input", source.getType(), new EndOfInputWatermark<>())
                .uid(name + "-end-of-input");
    }
}
