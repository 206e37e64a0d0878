package io.flowtrace.jobs.output;

import io.flowtrace.avro.SingleObjectCodec;
import java.util.Objects;
import org.apache.avro.specific.SpecificRecordBase;
import org.apache.flink.api.common.serialization.SerializationSchema;

/**
 * Encodes a generated SpecificRecord as an Avro single-object encoded Kafka value (docs/schemas.md)
 * with the shared {@link SingleObjectCodec}, the agent's framing and fast path.
 */
public final class AvroSingleObjectSerializationSchema<T extends SpecificRecordBase> implements SerializationSchema<T> {

    private static final long serialVersionUID = 1L;

    private final Class<T> type;
    private transient SingleObjectCodec<T> codec;

    private AvroSingleObjectSerializationSchema(Class<T> type) {
        this.type = Objects.requireNonNull(type, "type");
    }

    public static <T extends SpecificRecordBase> AvroSingleObjectSerializationSchema<T> of(Class<T> type) {
        return new AvroSingleObjectSerializationSchema<>(type);
    }

    @Override
    public void open(InitializationContext context) {
        codec();
    }

    @Override
    public byte[] serialize(T element) {
        return codec().encode(element);
    }

    private SingleObjectCodec<T> codec() {
        if (codec == null) {
            codec = SingleObjectCodec.of(type);
        }
        return codec;
    }
}
