package io.flowtrace.jobs.input;

import io.flowtrace.avro.DeadLetter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.EitherTypeInfo;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.types.Either;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * What a source deserializer produced, split: valid records (right: packet batches, conntrack
 * samples) continue; dead letters (left) go to the {@link #DEAD_LETTERS} side output and are
 * counted in the {@code deadLetters} metric. Stateless. The output type is the input's right type
 * (the deserializer's), given explicitly: Flink cannot extract it from a generic function.
 */
public final class InputTriage<T> extends ProcessFunction<Either<DeadLetter, T>, T> implements ResultTypeQueryable<T> {
    private static final long serialVersionUID = 1L;

    public static final OutputTag<DeadLetter> DEAD_LETTERS = new OutputTag<>("dead-letters") {};

    private final TypeInformation<T> valid;
    private transient Counter deadLetters;

    private InputTriage(TypeInformation<T> valid) {
        this.valid = valid;
    }

    /** The triage of a source's stream, whose type is a deserializer's {@code Either<DeadLetter, T>}. */
    public static <T> InputTriage<T> of(TypeInformation<Either<DeadLetter, T>> input) {
        if (!(input instanceof EitherTypeInfo<DeadLetter, T> either)) {
            throw new IllegalArgumentException("not an Either<DeadLetter, T> stream: " + input);
        }
        return new InputTriage<>(either.getRightType());
    }

    @Override
    public void open(OpenContext context) {
        deadLetters = getRuntimeContext().getMetricGroup().counter("deadLetters");
    }

    @Override
    public void processElement(Either<DeadLetter, T> element, Context context, Collector<T> out) {
        if (element.isRight()) {
            out.collect(element.right());
        } else {
            deadLetters.inc();
            context.output(DEAD_LETTERS, element.left());
        }
    }

    @Override
    public TypeInformation<T> getProducedType() {
        return valid;
    }
}
