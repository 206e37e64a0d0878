package io.flowtrace.agent.spool;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.TreeMap;
import java.util.zip.CRC32C;

/**
 * What {@link DiskSpool#open} does with what a previous run left (the head checkpoint aside,
 * {@link SpoolHead}): lists the segments and checks every pending record, cutting off a torn last record (a crash while
 * appending) and rejecting anything else that does not check out.
 */
final class SpoolRecovery {
    private SpoolRecovery() {}

    record SegmentScan(long records, long items, long validEnd, long tornBytes) {}

    /** Checks every record from {@code from}; cuts a torn tail off the last segment. */
    static SegmentScan scan(Path file, long from, boolean last, RecordWeight weight)
            throws IOException, SpoolCorruptedException {
        long size = Files.size(file);
        if (size < SegmentFormat.HEADER) {
            if (last) {
                try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                    ch.truncate(0);
                    ch.write(ByteBuffer.wrap(SegmentFormat.MAGIC), 0);
                }
                return new SegmentScan(0, 0, SegmentFormat.HEADER, size);
            }
            throw new SpoolCorruptedException(file, 0, "segment shorter than its header");
        }
        if (from > size) {
            throw new SpoolCorruptedException(
                    file, from, "head checkpoint points past the end of the segment (" + size + " B)");
        }
        CRC32C crc = new CRC32C();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer magic = ByteBuffer.allocate(SegmentFormat.HEADER);
            SegmentFormat.readFully(ch, magic, 0);
            if (!Arrays.equals(magic.array(), SegmentFormat.MAGIC)) {
                throw new SpoolCorruptedException(file, 0, "not a flowtrace spool segment (bad magic)");
            }
            long offset = from;
            long records = 0;
            long items = 0;
            ByteBuffer header = ByteBuffer.allocate(8);
            while (offset < size) {
                header.clear();
                SegmentFormat.readFully(ch, header, offset);
                if (header.hasRemaining()) {
                    return torn(ch, file, offset, size, last, records, items);
                }
                int keyLen = header.getInt(0);
                int valueLen = header.getInt(4);
                SegmentFormat.checkLengths(file, offset, keyLen, valueLen);
                long recordSize = SegmentFormat.RECORD_OVERHEAD + (long) keyLen + valueLen;
                if (offset + recordSize > size) {
                    return torn(ch, file, offset, size, last, records, items);
                }
                ByteBuffer rec = ByteBuffer.allocate((int) recordSize);
                SegmentFormat.readFully(ch, rec, offset);
                crc.reset();
                crc.update(rec.array(), 0, (int) recordSize - 4);
                if (rec.getInt((int) recordSize - 4) != (int) crc.getValue()) {
                    throw new SpoolCorruptedException(file, offset, "record CRC-32C mismatch");
                }
                offset += recordSize;
                records++;
                items += weight.items(rec.array(), 8 + keyLen, valueLen);
            }
            return new SegmentScan(records, items, size, 0);
        }
    }

    private static SegmentScan torn(
            FileChannel ch, Path file, long offset, long size, boolean last, long records, long items)
            throws IOException, SpoolCorruptedException {
        if (!last) {
            throw new SpoolCorruptedException(file, offset, "record cut short inside a segment that is not the last");
        }
        ch.truncate(offset);
        return new SegmentScan(records, items, offset, size - offset);
    }

    static TreeMap<Long, Path> listSegments(Path dir) throws IOException, SpoolCorruptedException {
        TreeMap<Long, Path> files = new TreeMap<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, "*" + SegmentFormat.SUFFIX)) {
            for (Path p : s) {
                String name = p.getFileName().toString();
                try {
                    files.put(Long.parseLong(name.substring(0, name.length() - SegmentFormat.SUFFIX.length())), p);
                } catch (NumberFormatException e) {
                    throw new SpoolCorruptedException(p, 0, "segment file name is not <number>" + SegmentFormat.SUFFIX);
                }
            }
        }
        return files;
    }
}
