package io.flowtrace.core.tcp;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * Zig-zag LEB128 variable-length longs for flow state: most counters are small, so an idle flow
 * serialises to a few hundred bytes instead of eight per field.
 */
final class Varints {
    private Varints() {}

    static void write(DataOutput out, long value) throws IOException {
        long v = (value << 1) ^ (value >> 63);
        while ((v & ~0x7fL) != 0) {
            out.writeByte((int) ((v & 0x7f) | 0x80));
            v >>>= 7;
        }
        out.writeByte((int) v);
    }

    static long read(DataInput in) throws IOException {
        long v = 0;
        for (int shift = 0; shift < 70; shift += 7) {
            int b = in.readUnsignedByte();
            v |= (long) (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                return (v >>> 1) ^ -(v & 1);
            }
        }
        throw new IOException("corrupt flow state: varint longer than 10 bytes");
    }
}
