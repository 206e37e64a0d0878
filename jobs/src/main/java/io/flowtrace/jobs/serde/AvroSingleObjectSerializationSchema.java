package io.flowtrace.jobs.serde;

import io.flowtrace.avro.SingleObjectHeader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Objects;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecordBase;
import org.apache.flink.api.common.serialization.SerializationSchema;

/**
 * Encodes a generated SpecificRecord as an Avro single-object encoded Kafka value (docs/schemas.md):
 * {@link SingleObjectHeader}, then the datum written by the generated class's own
 * {@code customEncode}, byte for byte what {@code BinaryMessageEncoder} writes. Avro uses those
 * coders only when the JVM-wide property {@code org.apache.avro.specific.use_custom_coders} is set;
 * without it {@code SpecificDatumWriter} resolves every field and union generically, which was the
 * largest share of the Kafka outputs' cost in the job's profile (docs/BENCHMARKS.md, "Job").
 */
public final class AvroSingleObjectSerializationSchema<T extends SpecificRecordBase> implements SerializationSchema<T> {

    private static final long serialVersionUID = 1L;

    private final Class<T> type;
    private transient byte[] header;
    private transient ByteArrayOutputStream buffer;
    private transient BinaryEncoder encoder;

    private AvroSingleObjectSerializationSchema(Class<T> type) {
        this.type = Objects.requireNonNull(type, "type");
    }

    public static <T extends SpecificRecordBase> AvroSingleObjectSerializationSchema<T> of(Class<T> type) {
        return new AvroSingleObjectSerializationSchema<>(type);
    }

    @Override
    public void open(InitializationContext context) {
        init();
    }

    @Override
    public byte[] serialize(T element) {
        init();
        buffer.reset();
        buffer.write(header, 0, header.length);
        encoder = EncoderFactory.get().directBinaryEncoder(buffer, encoder);
        try {
            element.customEncode(encoder);
            encoder.flush();
        } catch (IOException e) {
            // Writing to a byte array cannot fail for I/O reasons; this is a datum that does not fit its schema.
            throw new UncheckedIOException("cannot encode " + type.getSimpleName(), e);
        }
        return buffer.toByteArray();
    }

    private void init() {
        if (header == null) {
            header = SingleObjectHeader.of(SpecificData.get().getSchema(type));
            buffer = new ByteArrayOutputStream(1024);
        }
    }
}
