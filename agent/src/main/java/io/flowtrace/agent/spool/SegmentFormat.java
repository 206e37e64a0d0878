package io.flowtrace.agent.spool;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Locale;
import java.util.zip.CRC32C;

/**
 * The on-disk layout of a spool segment ({@code <id>.seg}, big-endian): the 8-byte magic
 * {@code FTSPOOL1}, then records {@code u32 keyLength, u32 valueLength, key, value,
 * u32 CRC-32C(lengths, key, value)}. Writing a record, reading records back and the checks on them;
 * where the head and the tail stand is {@link DiskSpool}'s and {@link SpoolHead}'s business.
 */
final class SegmentFormat {
    static final byte[] MAGIC = "FTSPOOL1".getBytes(StandardCharsets.US_ASCII);
    static final int HEADER = MAGIC.length;
    static final int RECORD_OVERHEAD = 12;
    /** A packet or conntrack record is < 2 KiB; anything near this is a corrupt length, not a record. */
    static final int MAX_RECORD_BYTES = 16 << 20;

    static final String SUFFIX = ".seg";

    private SegmentFormat() {}

    static Path segmentPath(Path dir, long id) {
        return dir.resolve(String.format(Locale.ROOT, "%020d%s", id, SUFFIX));
    }

    static int recordSize(byte[] key, byte[] value) {
        return RECORD_OVERHEAD + key.length + value.length;
    }

    /** Puts one record into {@code out}, which has {@link #recordSize} bytes left. */
    static void put(ByteBuffer out, byte[] key, byte[] value, CRC32C crc) {
        crc.reset();
        int start = out.position();
        out.putInt(key.length).putInt(value.length).put(key).put(value);
        crc.update(out.array(), out.arrayOffset() + start, out.position() - start);
        out.putInt((int) crc.getValue());
    }

    /** One record on its own, for a record larger than the write buffer. */
    static ByteBuffer encode(byte[] key, byte[] value, CRC32C crc) {
        ByteBuffer b = ByteBuffer.allocate(recordSize(key, value));
        put(b, key, value, crc);
        return b.flip();
    }

    /**
     * Reads the records of segment {@code id} from {@code offset} into {@code out}: as many as fit
     * in {@code byteBudget} (but at least one when {@code out} is empty) and up to {@code maxRecords}
     * in {@code out} in all, none past {@code size}, the segment's valid end.
     *
     * @return the offset after the last record read ({@code offset} when none was)
     */
    static long read(
            Path file,
            long id,
            long offset,
            long size,
            int byteBudget,
            int maxRecords,
            List<SpoolRecord> out,
            RecordWeight weight,
            CRC32C crc)
            throws IOException, SpoolCorruptedException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long end = Math.min(size, offset + Math.max(byteBudget, RECORD_OVERHEAD));
            ByteBuffer buf = ByteBuffer.allocate((int) (end - offset));
            readFully(ch, buf, offset);
            buf.flip();
            while (buf.remaining() >= 8 && out.size() < maxRecords) {
                int keyLen = buf.getInt(buf.position());
                int valueLen = buf.getInt(buf.position() + 4);
                checkLengths(file, offset, keyLen, valueLen);
                int recordSize = RECORD_OVERHEAD + keyLen + valueLen;
                if (buf.remaining() < recordSize) {
                    if (!out.isEmpty()) {
                        break;
                    }
                    // One record larger than the requested bytes: read just it.
                    buf = ByteBuffer.allocate(recordSize);
                    readFully(ch, buf, offset);
                    buf.flip();
                    continue;
                }
                out.add(decode(file, offset, buf, keyLen, valueLen, id, weight, crc));
                offset += recordSize;
            }
            if (buf.remaining() > 0 && buf.remaining() < 8 && offset + buf.remaining() == size) {
                throw new SpoolCorruptedException(file, offset, "segment ends inside a record header");
            }
            return offset;
        }
    }

    private static SpoolRecord decode(
            Path file,
            long offset,
            ByteBuffer buf,
            int keyLen,
            int valueLen,
            long segment,
            RecordWeight weight,
            CRC32C crc)
            throws SpoolCorruptedException {
        int start = buf.position();
        crc.reset();
        crc.update(buf.array(), buf.arrayOffset() + start, 8 + keyLen + valueLen);
        buf.position(start + 8);
        byte[] key = new byte[keyLen];
        byte[] value = new byte[valueLen];
        buf.get(key).get(value);
        int stored = buf.getInt();
        if (stored != (int) crc.getValue()) {
            throw new SpoolCorruptedException(file, offset, "record CRC-32C mismatch");
        }
        long endOffset = offset + RECORD_OVERHEAD + keyLen + valueLen;
        return new SpoolRecord(key, value, weight.items(value, 0, value.length), segment, endOffset);
    }

    static void checkLengths(Path file, long offset, int keyLen, int valueLen) throws SpoolCorruptedException {
        if (keyLen < 0 || valueLen < 0 || (long) keyLen + valueLen > MAX_RECORD_BYTES) {
            throw new SpoolCorruptedException(
                    file, offset, "impossible record lengths key=" + keyLen + " value=" + valueLen);
        }
    }

    static void readFully(FileChannel ch, ByteBuffer buf, long position) throws IOException {
        long p = position;
        while (buf.hasRemaining()) {
            int n = ch.read(buf, p);
            if (n < 0) {
                break;
            }
            p += n;
        }
    }
}
