package io.flowtrace.avro;

import java.io.IOException;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;

/**
 * Refuses an Avro binary datum in which a length or an item count claims more bytes than the record
 * holds, before Avro decodes it: the length-bomb guard of every decoder of untrusted records (Kafka
 * topics written by agents). A 26-byte record claiming a 1 GiB string must be a dead letter, not an
 * {@code OutOfMemoryError}.
 *
 * <p>Why not Avro's own limits: {@code org.apache.avro.SystemLimitException} reads the
 * {@code org.apache.avro.limits.*} system properties once, in its static initialiser, so they work only
 * as JVM flags given to every JVM that decodes (every TaskManager, the demo, tests), and their default is
 * the VM's array limit (2 GiB). Avro's {@code BinaryDecoder.readString}/{@code readBytes} allocate the
 * claimed length before reading it, and {@code org.apache.avro.generic.GenericDatumReader.skip} moves backwards on a negative
 * length (a loop without end inside an array). So this walks the encoding itself: zig-zag varints and
 * lengths as in the specification ("Binary encoding"), no allocation, and a record's own size as the
 * limit. It checks the encoding only; Avro still decodes (and rejects a bad union branch or enum
 * symbol) afterwards.
 *
 * <p>Collections: a block of {@code n} items needs at least {@code n} bytes whenever an item encodes in
 * one byte or more; the walker refuses {@code n} above the bytes left in every case, so an array or map
 * of zero-byte items ({@code null}, an empty record) longer than the rest of the record would be refused
 * too. No flowtrace schema has one (their arrays hold records of longs and strings).
 */
public final class AvroLengthGuard {
    private final Schema schema;
    private final long fingerprint;

    private AvroLengthGuard(Schema schema) {
        this.schema = schema;
        this.fingerprint = SchemaNormalization.parsingFingerprint64(schema);
    }

    /** The guard of records written with {@code schema} (a generated class's {@code getClassSchema()}). */
    public static AvroLengthGuard of(Schema schema) {
        return new AvroLengthGuard(schema);
    }

    /**
     * Checks a single-object encoded record. A header that is not intact or names another schema is
     * left to the decoder, which reports it (bad header, unknown fingerprint).
     *
     * @throws LengthBombException naming the field whose length or count does not fit the record
     */
    public void checkSingleObject(byte[] value) throws LengthBombException {
        if (SingleObjectCodec.fingerprintOf(value) != fingerprint) {
            return;
        }
        checkBinary(value, SingleObjectCodec.HEADER_BYTES, value.length - SingleObjectCodec.HEADER_BYTES);
    }

    /** Checks a plain Avro binary datum of this guard's schema in {@code buf[offset, offset + length)}. */
    public void checkBinary(byte[] buf, int offset, int length) throws LengthBombException {
        Walk w = new Walk(buf, offset, offset + length);
        w.datum(schema, schema.getName());
    }

    /** A cursor over one datum; one per check (the guard itself is shared and immutable). */
    private static final class Walk {
        private final byte[] buf;
        private final int end;
        private int pos;

        Walk(byte[] buf, int offset, int end) {
            this.buf = buf;
            this.pos = offset;
            this.end = end;
        }

        /** {@code path}: the innermost field's name, for the message (no string is built unless a check fails). */
        void datum(Schema s, String path) throws LengthBombException {
            switch (s.getType()) {
                case NULL -> {}
                case BOOLEAN -> skip(1, path);
                case INT, LONG, ENUM -> varint(path);
                case FLOAT -> skip(4, path);
                case DOUBLE -> skip(8, path);
                case FIXED -> skip(s.getFixedSize(), path);
                case STRING, BYTES -> skip(length(path, "length"), path);
                case RECORD -> {
                    List<Schema.Field> fields = s.getFields();
                    for (int i = 0; i < fields.size(); i++) {
                        Schema.Field f = fields.get(i);
                        datum(f.schema(), f.name());
                    }
                }
                case UNION -> {
                    long branch = varint(path);
                    List<Schema> types = s.getTypes();
                    if (branch < 0 || branch >= types.size()) {
                        throw new LengthBombException(path + ": union branch " + branch + " of " + types.size());
                    }
                    datum(types.get((int) branch), path);
                }
                case ARRAY -> blocks(s.getElementType(), null, path);
                case MAP -> blocks(s.getValueType(), Schema.create(Schema.Type.STRING), path);
                default -> throw new LengthBombException(path + ": unsupported type " + s.getType());
            }
        }

        /** Array and map blocks: count, (if negative: -count and the block's byte size), items; count 0 ends. */
        private void blocks(Schema item, Schema key, String path) throws LengthBombException {
            while (true) {
                long count = varint(path);
                if (count == 0) {
                    return;
                }
                if (count < 0) {
                    count = -count; // Long.MIN_VALUE stays negative and fails the check below
                    length(path, "block size");
                }
                if (count < 0 || count > end - pos) {
                    throw new LengthBombException(path + ": a block claims " + count + " items, the record has "
                            + (end - pos) + " bytes left");
                }
                for (long i = 0; i < count; i++) {
                    if (key != null) {
                        datum(key, path);
                    }
                    datum(item, path);
                }
            }
        }

        /** A length (string, bytes, block size): not negative and not beyond the record. */
        private int length(String path, String what) throws LengthBombException {
            long n = varint(path);
            if (n < 0 || n > end - pos) {
                throw new LengthBombException(
                        path + ": " + what + " " + n + " claimed, the record has " + (end - pos) + " bytes left");
            }
            return (int) n;
        }

        private void skip(int n, String path) throws LengthBombException {
            if (n > end - pos) {
                throw new LengthBombException(
                        path + ": needs " + n + " bytes, the record has " + (end - pos) + " left");
            }
            pos += n;
        }

        /** A zig-zag varint (int or long: at most 10 bytes). */
        private long varint(String path) throws LengthBombException {
            long raw = 0;
            for (int shift = 0; shift < 70; shift += 7) {
                if (pos >= end) {
                    throw new LengthBombException(path + ": the record ends inside a number");
                }
                int b = buf[pos++] & 0xFF;
                raw |= (long) (b & 0x7F) << shift;
                if ((b & 0x80) == 0) {
                    return (raw >>> 1) ^ -(raw & 1);
                }
            }
            throw new LengthBombException(path + ": a number longer than 10 bytes");
        }
    }

    /** A datum whose encoding does not fit its own record: the message names the field and the sizes. */
    public static final class LengthBombException extends IOException {
        private static final long serialVersionUID = 1L;

        LengthBombException(String message) {
            super("Avro length check: " + message);
        }
    }
}
