package io.flowtrace.jobs.serde;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Objects;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecordBase;
import org.apache.flink.api.common.serialization.SerializationSchema;

/** Encodes a generated SpecificRecord as an Avro single-object encoded Kafka value (docs/schemas.md). */
public final class AvroSingleObjectSerializationSchema<T extends SpecificRecordBase> implements SerializationSchema<T> {

    private static final long serialVersionUID = 1L;

    private final Class<T> type;
    private transient BinaryMessageEncoder<T> encoder;
    private transient ByteArrayOutputStream buffer;

    private AvroSingleObjectSerializationSchema(Class<T> type) {
        this.type = Objects.requireNonNull(type, "type");
    }

    public static <T extends SpecificRecordBase> AvroSingleObjectSerializationSchema<T> of(Class<T> type) {
        return new AvroSingleObjectSerializationSchema<>(type);
    }

    @Override
    public void open(InitializationContext context) {
        encoder();
    }

    @Override
    public byte[] serialize(T element) {
        BinaryMessageEncoder<T> enc = encoder();
        buffer.reset();
        try {
            enc.encode(element, buffer);
        } catch (IOException e) {
            // Writing to a byte array cannot fail for I/O reasons; this is a datum that does not fit its schema.
            throw new UncheckedIOException("cannot encode " + type.getSimpleName(), e);
        }
        return buffer.toByteArray();
    }

    private BinaryMessageEncoder<T> encoder() {
        if (encoder == null) {
            SpecificData model = SpecificData.getForClass(type);
            encoder = new BinaryMessageEncoder<>(model, model.getSchema(type));
            buffer = new ByteArrayOutputStream(256);
        }
        return encoder;
    }
}
