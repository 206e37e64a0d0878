package io.flowtrace.jobs.source;

import io.flowtrace.avro.DeadLetter;
import io.flowtrace.jobs.flow.FlowBatch;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.types.Either;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/** Packet records (batches and events) continue; dead letters go to the {@link #DEAD_LETTERS} side output and are counted. */
public final class InputTriage extends ProcessFunction<Either<DeadLetter, FlowBatch>, FlowBatch> {
    private static final long serialVersionUID = 1L;

    public static final OutputTag<DeadLetter> DEAD_LETTERS = new OutputTag<>("dead-letters") { };

    private transient Counter deadLetters;

    @Override
    public void open(OpenContext context) {
        deadLetters = getRuntimeContext().getMetricGroup().counter("deadLetters");
    }

    @Override
    public void processElement(Either<DeadLetter, FlowBatch> element, Context context, Collector<FlowBatch> out) {
        if (element.isRight()) {
            out.collect(element.right());
        } else {
            deadLetters.inc();
            context.output(DEAD_LETTERS, element.left());
        }
    }
}
