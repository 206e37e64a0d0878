package io.flowtrace.avro.mapping;

import io.flowtrace.avro.mapping.PacketBatchHeader.MalformedBatchException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** Avro binary encoding ("Binary encoding" in the specification): zig-zag varints, length-prefixed bytes. */
final class AvroCursor {
    private final byte[] buf;
    private int pos;

    AvroCursor(byte[] buf, int pos) {
        this.buf = buf;
        this.pos = pos;
    }

    int position() {
        return pos;
    }

    /** A boolean: one byte, 0 or 1. */
    boolean bool(String field) throws MalformedBatchException {
        if (pos >= buf.length) {
            throw new MalformedBatchException("PacketBatch ends inside " + field);
        }
        int b = buf[pos++];
        if (b != 0 && b != 1) {
            throw new MalformedBatchException("PacketBatch " + field + ": boolean byte " + b);
        }
        return b == 1;
    }

    /** The branch index of a ["null", X] union: false for null, true for X. */
    boolean present(String field) throws MalformedBatchException {
        long branch = varint(field);
        if (branch != 0 && branch != 1) {
            throw new MalformedBatchException("PacketBatch " + field + ": union branch " + branch);
        }
        return branch == 1;
    }

    long varint(String field) throws MalformedBatchException {
        long raw = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (pos >= buf.length) {
                throw new MalformedBatchException("PacketBatch ends inside " + field);
            }
            int b = buf[pos++] & 0xff;
            raw |= (long) (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                return (raw >>> 1) ^ -(raw & 1);
            }
        }
        throw new MalformedBatchException("PacketBatch " + field + ": a number longer than 10 bytes");
    }

    int intValue(String field) throws MalformedBatchException {
        long v = varint(field);
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw new MalformedBatchException("PacketBatch " + field + ": " + v + " is not an int");
        }
        return (int) v;
    }

    byte[] bytes(String field) throws MalformedBatchException {
        long n = varint(field);
        if (n < 0 || n > buf.length - pos) {
            throw new MalformedBatchException(
                    "PacketBatch " + field + ": length " + n + " claimed, " + (buf.length - pos) + " bytes left");
        }
        byte[] out = Arrays.copyOfRange(buf, pos, pos + (int) n);
        pos += (int) n;
        return out;
    }

    String string(String field) throws MalformedBatchException {
        return new String(bytes(field), StandardCharsets.UTF_8);
    }
}
