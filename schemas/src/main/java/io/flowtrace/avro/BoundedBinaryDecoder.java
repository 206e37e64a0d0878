package io.flowtrace.avro;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.avro.io.Decoder;
import org.apache.avro.util.Utf8;

/**
 * An Avro binary decoder over one record's bytes ({@code buf[offset, offset + length)}) that refuses,
 * as it reads, any length or item count claiming more than the bytes left: the length-bomb guard of
 * {@link AvroLengthGuard} fused with the decode, so an untrusted datum is walked once instead of
 * twice (guard walk, then Avro's {@code BinaryDecoder}). Give it to a {@code SpecificDatumReader}
 * (or any {@code org.apache.avro.io.DatumReader}) in place of a {@code BinaryDecoder}: the reader's resolving layer
 * asks it for each value in schema order, as it asks Avro's own decoder.
 *
 * <p>Hand-written for a measured reason (docs/BENCHMARKS.md, the job's profile under
 * {@code --flow-rows notable}): the separate walk was half of the flow task's decode. Avro's own
 * limits ({@code org.apache.avro.SystemLimitException}) are still read once from JVM-wide
 * {@code org.apache.avro.limits.*} properties in its static initialiser in 1.12.1 with the VM's
 * array limit as default, and {@code BinaryDecoder.readString}/{@code readBytes} still allocate the
 * claimed length before reading it; Avro's {@code BinaryDecoder} cannot be subclassed (its
 * constructors are package-private), hence a decoder of its own.
 *
 * <p>The rules are {@link AvroLengthGuard}'s, from the specification ("Binary encoding"): zig-zag
 * varints of at most 10 bytes (5 for an int, whose value must fit 32 bits), a string or bytes
 * length and an array or map block's byte size not negative and not beyond the record, a block's
 * item count not beyond the bytes left (every item of a flowtrace schema encodes in one byte or
 * more), fixed-size values within the record. A value is decoded exactly as Avro's
 * {@code BinaryDecoder} decodes it (BoundedBinaryDecoderTest compares both on real records); a
 * refusal is a {@link AvroLengthGuard.LengthBombException}. One instance per thread, reset per record.
 */
public final class BoundedBinaryDecoder extends Decoder {
    private byte[] buf;
    private int pos;
    private int end;

    /** A decoder of {@code buf[offset, offset + length)}. */
    public BoundedBinaryDecoder(byte[] buf, int offset, int length) {
        reset(buf, offset, length);
    }

    /** Points this decoder at the next record, {@code buf[offset, offset + length)}. */
    public BoundedBinaryDecoder reset(byte[] buf, int offset, int length) {
        if (offset < 0 || length < 0 || offset > buf.length - length) {
            throw new IndexOutOfBoundsException("offset " + offset + ", length " + length + " of " + buf.length);
        }
        this.buf = buf;
        this.pos = offset;
        this.end = offset + length;
        return this;
    }

    /** The bytes of the record not read yet. */
    public int remaining() {
        return end - pos;
    }

    @Override
    public void readNull() {}

    @Override
    public boolean readBoolean() throws IOException {
        need(1, "a boolean");
        return (buf[pos++] & 0xFF) == 1; // as BinaryDecoder: 1 is true, any other byte false
    }

    @Override
    public int readInt() throws IOException {
        int start = pos;
        long v = readLong();
        if (pos - start > 5 || v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw bomb("an int of " + (pos - start) + " bytes (" + v + ")");
        }
        return (int) v;
    }

    @Override
    public long readLong() throws IOException {
        long raw = 0;
        for (int shift = 0; shift < 70; shift += 7) {
            if (pos >= end) {
                throw bomb("the record ends inside a number");
            }
            int b = buf[pos++] & 0xFF;
            raw |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return (raw >>> 1) ^ -(raw & 1);
            }
        }
        throw bomb("a number longer than 10 bytes");
    }

    @Override
    public float readFloat() throws IOException {
        need(4, "a float");
        return Float.intBitsToFloat(littleEndianInt());
    }

    @Override
    public double readDouble() throws IOException {
        need(8, "a double");
        long low = littleEndianInt() & 0xFFFFFFFFL;
        long high = littleEndianInt() & 0xFFFFFFFFL;
        return Double.longBitsToDouble(high << 32 | low);
    }

    @Override
    public Utf8 readString(Utf8 old) throws IOException {
        int n = length("string length");
        Utf8 result = old != null ? old : new Utf8();
        result.setByteLength(n);
        System.arraycopy(buf, pos, result.getBytes(), 0, n);
        pos += n;
        return result;
    }

    @Override
    public String readString() throws IOException {
        int n = length("string length");
        String s = new String(buf, pos, n, StandardCharsets.UTF_8);
        pos += n;
        return s;
    }

    @Override
    public void skipString() throws IOException {
        pos += length("string length");
    }

    @Override
    public ByteBuffer readBytes(ByteBuffer old) throws IOException {
        int n = length("bytes length");
        ByteBuffer result;
        if (old != null && n <= old.capacity()) { // reused as BinaryDecoder reuses it
            result = old;
            result.clear();
        } else {
            result = ByteBuffer.allocate(n);
        }
        System.arraycopy(buf, pos, result.array(), result.arrayOffset() + result.position(), n);
        pos += n;
        result.limit(n);
        return result;
    }

    @Override
    public void skipBytes() throws IOException {
        pos += length("bytes length");
    }

    @Override
    public void readFixed(byte[] bytes, int start, int length) throws IOException {
        need(length, "a fixed of " + length + " bytes");
        System.arraycopy(buf, pos, bytes, start, length);
        pos += length;
    }

    @Override
    public void skipFixed(int length) throws IOException {
        need(length, "a fixed of " + length + " bytes");
        pos += length;
    }

    @Override
    public int readEnum() throws IOException {
        return readInt();
    }

    @Override
    public long readArrayStart() throws IOException {
        return itemCount();
    }

    @Override
    public long arrayNext() throws IOException {
        return itemCount();
    }

    @Override
    public long skipArray() throws IOException {
        return skipBlocks();
    }

    @Override
    public long readMapStart() throws IOException {
        return itemCount();
    }

    @Override
    public long mapNext() throws IOException {
        return itemCount();
    }

    @Override
    public long skipMap() throws IOException {
        return skipBlocks();
    }

    @Override
    public int readIndex() throws IOException {
        return readInt();
    }

    /** A block's item count (after its byte size when negative): not beyond the bytes left. */
    private long itemCount() throws IOException {
        long count = readLong();
        if (count < 0) {
            count = -count; // Long.MIN_VALUE stays negative and fails below
            length("block size");
        }
        return items(count);
    }

    /** Skips the blocks that give their byte size; returns the first count that does not (0 ends). */
    private long skipBlocks() throws IOException {
        while (true) {
            long count = readLong();
            if (count >= 0) {
                return items(count);
            }
            pos += length("block size");
        }
    }

    /** A block's item count: not negative and not beyond the bytes left (an item takes a byte or more). */
    private long items(long count) throws IOException {
        if (count < 0 || count > end - pos) {
            throw bomb("a block claims " + count + " items, the record has " + (end - pos) + " bytes left");
        }
        return count;
    }

    /** A length (string, bytes, block size): not negative and not beyond the record. */
    private int length(String what) throws IOException {
        long n = readLong();
        if (n < 0 || n > end - pos) {
            throw bomb(what + " " + n + " claimed, the record has " + (end - pos) + " bytes left");
        }
        return (int) n;
    }

    private void need(int n, String what) throws IOException {
        if (n < 0 || n > end - pos) {
            throw bomb(what + " needs " + n + " bytes, the record has " + (end - pos) + " left");
        }
    }

    private int littleEndianInt() {
        int v = (buf[pos] & 0xFF)
                | (buf[pos + 1] & 0xFF) << 8
                | (buf[pos + 2] & 0xFF) << 16
                | (buf[pos + 3] & 0xFF) << 24;
        pos += 4;
        return v;
    }

    private static AvroLengthGuard.LengthBombException bomb(String message) {
        return new AvroLengthGuard.LengthBombException(message);
    }
}
