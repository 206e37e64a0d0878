package io.flowtrace.jobs.serde;

import java.io.IOException;
import java.util.Objects;
import org.apache.avro.message.BinaryMessageDecoder;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecordBase;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;

/**
 * Decodes Kafka values written in Avro single-object encoding (docs/schemas.md) into the generated
 * SpecificRecord class. A value with a bad header or an unknown writer fingerprint throws
 * (BadHeaderException / MissingSchemaException, both AvroRuntimeException): sources that must
 * survive bad input read raw bytes and dead-letter them instead of using this schema directly.
 */
public final class AvroSingleObjectDeserializationSchema<T extends SpecificRecordBase> implements DeserializationSchema<T> {

    private static final long serialVersionUID = 1L;

    private final Class<T> type;
    private transient BinaryMessageDecoder<T> decoder;

    private AvroSingleObjectDeserializationSchema(Class<T> type) {
        this.type = Objects.requireNonNull(type, "type");
    }

    public static <T extends SpecificRecordBase> AvroSingleObjectDeserializationSchema<T> of(Class<T> type) {
        return new AvroSingleObjectDeserializationSchema<>(type);
    }

    @Override
    public void open(InitializationContext context) {
        decoder();
    }

    @Override
    public T deserialize(byte[] message) throws IOException {
        return decoder().decode(message);
    }

    @Override
    public boolean isEndOfStream(T nextElement) {
        return false;
    }

    @Override
    public TypeInformation<T> getProducedType() {
        return new AvroTypeInfo<>(type);
    }

    private BinaryMessageDecoder<T> decoder() {
        if (decoder == null) {
            SpecificData model = SpecificData.getForClass(type);
            decoder = new BinaryMessageDecoder<>(model, model.getSchema(type));
        }
        return decoder;
    }
}
