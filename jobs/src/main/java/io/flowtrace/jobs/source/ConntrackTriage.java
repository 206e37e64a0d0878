package io.flowtrace.jobs.source;

import io.flowtrace.avro.DeadLetter;
import io.flowtrace.jobs.conntrack.ConntrackSample;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.types.Either;
import org.apache.flink.util.Collector;

/** Conntrack samples continue; dead letters go to {@link InputTriage#DEAD_LETTERS} and are counted. */
public final class ConntrackTriage extends ProcessFunction<Either<DeadLetter, ConntrackSample>, ConntrackSample> {
    private static final long serialVersionUID = 1L;

    private transient Counter deadLetters;

    @Override
    public void open(OpenContext context) {
        deadLetters = getRuntimeContext().getMetricGroup().counter("deadLetters");
    }

    @Override
    public void processElement(Either<DeadLetter, ConntrackSample> element, Context context, Collector<ConntrackSample> out) {
        if (element.isRight()) {
            out.collect(element.right());
        } else {
            deadLetters.inc();
            context.output(InputTriage.DEAD_LETTERS, element.left());
        }
    }
}
