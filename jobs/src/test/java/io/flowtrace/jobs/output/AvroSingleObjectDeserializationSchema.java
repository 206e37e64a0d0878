package io.flowtrace.jobs.output;

import io.flowtrace.avro.SingleObjectCodec;
import java.io.IOException;
import java.util.Objects;
import org.apache.avro.specific.SpecificRecordBase;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;

/**
 * Decodes Kafka values written in Avro single-object encoding (docs/schemas.md) into the generated
 * SpecificRecord class, for tests that read a topic with a plain KafkaSource. A value with a bad
 * header or an unknown writer fingerprint throws: the job's own sources read raw bytes and
 * dead-letter them instead (PacketRecordDeserializer, ConntrackRecordDeserializer).
 */
public final class AvroSingleObjectDeserializationSchema<T extends SpecificRecordBase>
        implements DeserializationSchema<T> {

    private static final long serialVersionUID = 1L;

    private final Class<T> type;
    private transient SingleObjectCodec<T> codec;

    private AvroSingleObjectDeserializationSchema(Class<T> type) {
        this.type = Objects.requireNonNull(type, "type");
    }

    public static <T extends SpecificRecordBase> AvroSingleObjectDeserializationSchema<T> of(Class<T> type) {
        return new AvroSingleObjectDeserializationSchema<>(type);
    }

    @Override
    public T deserialize(byte[] message) throws IOException {
        if (codec == null) {
            codec = SingleObjectCodec.of(type);
        }
        return codec.decode(message);
    }

    @Override
    public boolean isEndOfStream(T nextElement) {
        return false;
    }

    @Override
    public TypeInformation<T> getProducedType() {
        return new AvroTypeInfo<>(type);
    }
}
