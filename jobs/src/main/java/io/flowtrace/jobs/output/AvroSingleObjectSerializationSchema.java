package io.flowtrace.jobs.output;

import io.flowtrace.avro.SingleObjectCodec;
import java.util.Objects;
import org.apache.avro.specific.SpecificRecordBase;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;

/**
 * Encodes a generated SpecificRecord as an Avro single-object encoded Kafka value (docs/schemas.md)
 * with the shared {@link SingleObjectCodec}, the agent's framing and fast path.
 *
 * <p>It tells its element type ({@link ResultTypeQueryable}): KafkaSink's lineage facet
 * ({@code
 * org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchemaBuilder.KafkaRecordSerializationSchemaWrapper.getTypeDatasetFacet},
 * flink-connector-kafka 5.0.0)
 * asks the value schema for it and otherwise reflects on the class's type variable, which a generic
 * class cannot answer (an {@code org.apache.flink.api.common.functions.InvalidTypesException} logged per sink at every job start).
 */
public final class AvroSingleObjectSerializationSchema<T extends SpecificRecordBase>
        implements SerializationSchema<T>, ResultTypeQueryable<T> {

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
    public TypeInformation<T> getProducedType() {
        return new AvroTypeInfo<>(type);
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
