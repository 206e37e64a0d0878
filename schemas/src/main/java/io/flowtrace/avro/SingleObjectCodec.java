package io.flowtrace.avro;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.message.BinaryMessageDecoder;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecordBase;

/**
 * Avro single-object encoding (docs/schemas.md; Avro specification, "Single-object encoding") of
 * one generated record class, the one framing every Kafka value of flowtrace goes through: the
 * agent's encoders, the job's source deserializers and its Kafka outputs. A value is the marker
 * {@code C3 01}, the writer schema's CRC-64-AVRO fingerprint little-endian, then the binary datum.
 *
 * <p>Encoding is the fast path the agent measured (docs/agent.md): the header is copied from a
 * constant and the datum written by the generated class's own {@code customEncode} through one
 * reused direct {@code BinaryEncoder}. Avro's {@code BinaryMessageEncoder} writes the same bytes
 * (SingleObjectCodecTest) but goes through {@code SpecificDatumWriter}, whose generic path (custom
 * coders only with the JVM-wide {@code org.apache.avro.specific.use_custom_coders} property) cost
 * about three times as much per packet. Decoding checks lengths first ({@link AvroLengthGuard}: an
 * untrusted value claiming a 1 GiB string is refused before Avro allocates it), then uses Avro's
 * {@code BinaryMessageDecoder}, whose exceptions name a bad header or an unknown fingerprint.
 *
 * <p>An instance keeps its buffers: one per thread (a Flink function holds it in a transient field).
 * The static methods read a header without decoding, to tell contracts on one topic apart.
 */
public final class SingleObjectCodec<T extends SpecificRecordBase> {
    /** Marker (2 bytes) and fingerprint (8 bytes). */
    public static final int HEADER_BYTES = 10;
    /** What {@link #fingerprintOf} returns for a value without an intact header. */
    public static final long NO_FINGERPRINT = 0;

    private final SpecificData model;
    private final Schema schema;
    private final byte[] header;
    private final long fingerprint;
    private final AvroLengthGuard lengths;
    /** Released older writer schemas this codec also decodes, by fingerprint (each with its own guard). */
    private final Map<Long, Schema> olderWriters = new HashMap<>();

    private final Map<Long, AvroLengthGuard> olderLengths = new HashMap<>();
    private final ByteArrayOutputStream buffer = new ByteArrayOutputStream(256);
    private BinaryEncoder encoder;
    private SpecificDatumWriter<T> writer;
    private BinaryMessageDecoder<T> decoder;

    private SingleObjectCodec(SpecificData model, Schema schema) {
        this.model = model;
        this.schema = schema;
        this.fingerprint = SchemaNormalization.parsingFingerprint64(schema);
        this.header = header(schema);
        this.lengths = AvroLengthGuard.of(schema);
    }

    /** The codec of a generated class (its {@code getClassSchema()}). */
    public static <T extends SpecificRecordBase> SingleObjectCodec<T> of(Class<T> type) {
        SpecificData model = SpecificData.getForClass(type);
        return new SingleObjectCodec<>(model, model.getSchema(type));
    }

    /**
     * The codec of a generated class that also decodes values written with the released older
     * schemas {@code olderWriters} (Avro schema resolution fills the fields they lack with their
     * defaults): what a reader of records from agents of several versions needs.
     */
    public static <T extends SpecificRecordBase> SingleObjectCodec<T> of(Class<T> type, List<Schema> olderWriters) {
        SingleObjectCodec<T> codec = of(type);
        for (Schema older : olderWriters) {
            long fp = SchemaNormalization.parsingFingerprint64(older);
            if (fp != codec.fingerprint) {
                codec.olderWriters.put(fp, older);
                codec.olderLengths.put(fp, AvroLengthGuard.of(older));
            }
        }
        return codec;
    }

    /** The 10-byte header of records written with {@code schema}. */
    public static byte[] header(Schema schema) {
        long fp = SchemaNormalization.parsingFingerprint64(schema);
        byte[] h = new byte[HEADER_BYTES];
        h[0] = (byte) 0xC3;
        h[1] = (byte) 0x01;
        for (int i = 0; i < 8; i++) {
            h[2 + i] = (byte) (fp >>> (8 * i));
        }
        return h;
    }

    /** Whether {@code value[offset, offset + length)} starts with the marker and holds a whole header. */
    public static boolean hasHeader(byte[] value, int offset, int length) {
        return value != null && length >= HEADER_BYTES && value[offset] == (byte) 0xC3 && value[offset + 1] == 0x01;
    }

    /** The writer fingerprint in the header of a whole value, or {@link #NO_FINGERPRINT}. */
    public static long fingerprintOf(byte[] value) {
        return value == null ? NO_FINGERPRINT : fingerprintOf(value, 0, value.length);
    }

    /** The writer fingerprint in the header of {@code value[offset, offset + length)}, or {@link #NO_FINGERPRINT}. */
    public static long fingerprintOf(byte[] value, int offset, int length) {
        if (!hasHeader(value, offset, length)) {
            return NO_FINGERPRINT;
        }
        long f = 0;
        for (int i = offset + 9; i >= offset + 2; i--) {
            f = (f << 8) | (value[i] & 0xffL);
        }
        return f;
    }

    /** The writer fingerprint of an intact header, boxed, else null (a dead letter's nullable field). */
    public static Long fingerprintOrNull(byte[] value) {
        return value != null && hasHeader(value, 0, value.length) ? fingerprintOf(value) : null;
    }

    /** This schema's fingerprint: bytes 2..9 of every value this codec writes. */
    public long fingerprint() {
        return fingerprint;
    }

    /** A copy of this schema's header, for encoders that write the datum themselves. */
    public byte[] header() {
        return header.clone();
    }

    /** Whether a value was written with this codec's schema (by its header alone). */
    public boolean isWriterOf(byte[] value) {
        return fingerprintOf(value) == fingerprint;
    }

    /** The single-object encoding of {@code datum}, a new array. */
    public byte[] encode(T datum) {
        buffer.reset();
        buffer.write(header, 0, header.length);
        encoder = EncoderFactory.get().directBinaryEncoder(buffer, encoder);
        try {
            write(datum);
            encoder.flush();
        } catch (IOException e) {
            // Writing to memory cannot fail for I/O reasons: this is a datum that does not fit its schema.
            throw new UncheckedIOException("encoding a " + schema.getName(), e);
        }
        return buffer.toByteArray();
    }

    private void write(T datum) throws IOException {
        try {
            datum.customEncode(encoder);
        } catch (UnsupportedOperationException noCustomCoder) {
            // Avro generates custom coders for every flowtrace schema; this keeps any other class correct.
            if (writer == null) {
                writer = new SpecificDatumWriter<>(schema, model);
            }
            writer.write(datum, encoder);
        }
    }

    /**
     * Decodes an untrusted value of this schema.
     *
     * @throws AvroLengthGuard.LengthBombException when a length or count claims more than the value holds
     * @throws org.apache.avro.AvroRuntimeException a bad header or an unknown fingerprint
     *     (Avro's {@code BadHeaderException}, {@code MissingSchemaException})
     * @throws IOException a truncated or corrupt datum
     */
    public T decode(byte[] value) throws IOException {
        return decode(value, null);
    }

    /** As {@link #decode(byte[])}, reading into {@code reuse} (Avro's object reuse) when it is not null. */
    public T decode(byte[] value, T reuse) throws IOException {
        lengths.checkSingleObject(value);
        AvroLengthGuard older = olderLengths.isEmpty() ? null : olderLengths.get(fingerprintOf(value));
        if (older != null) {
            older.checkSingleObject(value);
        }
        if (decoder == null) {
            decoder = new BinaryMessageDecoder<>(model, schema);
            olderWriters.values().forEach(decoder::addSchema);
        }
        return decoder.decode(value, reuse);
    }
}
