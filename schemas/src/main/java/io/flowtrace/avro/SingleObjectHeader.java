package io.flowtrace.avro;

import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;

/**
 * The 10-byte header of Avro single-object encoding (docs/schemas.md; Avro specification,
 * "Single-object encoding"): marker {@code C3 01}, then the schema's CRC-64-AVRO fingerprint
 * little-endian. Avro's {@code BinaryMessageEncoder} writes the same bytes but does not expose them;
 * encoders that write the datum themselves, with a reused {@code BinaryEncoder}, put these in front.
 */
public final class SingleObjectHeader {
    private SingleObjectHeader() {
    }

    /** The header of records written with {@code schema} (a generated class's {@code getClassSchema()}). */
    public static byte[] of(Schema schema) {
        long fp = SchemaNormalization.parsingFingerprint64(schema);
        byte[] h = new byte[10];
        h[0] = (byte) 0xC3;
        h[1] = (byte) 0x01;
        for (int i = 0; i < 8; i++) {
            h[2 + i] = (byte) (fp >>> (8 * i));
        }
        return h;
    }
}
