package io.flowtrace.agent.spool;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.zip.CRC32C;

/**
 * A bounded, ordered, on-disk FIFO of Kafka records (key, value) for the time the broker cannot take
 * them. Records are appended to segment files ({@code <id>.seg}) and read back in exactly the order
 * they were appended; {@link #commit} moves the persisted head past records that Kafka acknowledged,
 * so a restarted agent replays only what was never delivered.
 *
 * <p>Format: {@link SegmentFormat} (magic, then length-prefixed records with a CRC-32C each); the
 * replay cursor: {@link SpoolHead} (the file {@code head}, "segmentId offset", replaced atomically).
 *
 * <p>Durability: appends are buffered in memory and written when the buffer fills, on {@link #flush}
 * (the publisher calls it every 100 ms) and on close: a crashed process loses at most that buffer; no
 * fsync, so a machine crash may lose what the page cache held. A torn last record (crash mid-write)
 * is cut off at open; anything else that does not check out is a {@link SpoolCorruptedException}.
 *
 * <p>Counts: records (Kafka records) and the packets or events they carry, as the
 * {@link RecordWeight} given at open says (a batch of one flow's packets is one record).
 *
 * <p>Thread-safe: one thread appends (the capture loop), another reads and commits (the replay).
 */
public final class DiskSpool implements Closeable {
    private static final FileAttribute<?> OWNER_ONLY =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));
    private static final int HEADER = SegmentFormat.HEADER;
    private static final int WRITE_BUFFER = 256 * 1024;

    private final Path dir;
    private final long maxBytes;
    private final long segmentBytes;
    /** Segment id → bytes in it (file plus what the write buffer holds for the tail). */
    private final TreeMap<Long, Long> segments = new TreeMap<>();

    private final ByteBuffer writeBuffer = ByteBuffer.allocate(WRITE_BUFFER);
    private final CRC32C crc = new CRC32C();
    private final long recoveredTornBytes;
    private FileChannel lockChannel;

    private long totalBytes;
    private long pendingRecords;
    private long pendingItems;
    private final RecordWeight weight;
    private long tailId;
    private FileChannel tail;
    private final SpoolHead head;
    private boolean closed;

    private DiskSpool(Path dir, long maxBytes, long recoveredTornBytes, RecordWeight weight, SpoolHead head) {
        this.dir = dir;
        this.head = head;
        this.weight = weight;
        this.maxBytes = maxBytes;
        this.segmentBytes = Math.max(64 * 1024, Math.min(64L << 20, maxBytes / 8));
        this.recoveredTornBytes = recoveredTornBytes;
    }

    /**
     * Opens (or creates) the spool in {@code dir}, checking every pending record: what a previous
     * run left behind is replayed first.
     *
     * @throws SpoolCorruptedException when a file is not what the spool wrote
     */
    public static DiskSpool open(Path dir, long maxBytes) throws IOException, SpoolCorruptedException {
        return open(dir, maxBytes, RecordWeight.ONE);
    }

    /**
     * As {@link #open(Path, long)}, counting the packets or events of each record with {@code weight}
     * ({@link #pendingItems()}, {@link SpoolRecord#items()}).
     */
    public static DiskSpool open(Path dir, long maxBytes, RecordWeight weight)
            throws IOException, SpoolCorruptedException {
        if (maxBytes < 1024) {
            throw new IllegalArgumentException("spool size limit " + maxBytes + " B is below 1 KiB");
        }
        // Packet metadata of every local flow: readable by the agent's user only (0700 / 0600 when created here).
        Files.createDirectories(
                dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        FileChannel lock = lock(dir);
        try {
            DiskSpool spool = openLocked(dir, maxBytes, weight);
            spool.lockChannel = lock;
            return spool;
        } catch (IOException | SpoolCorruptedException | RuntimeException e) {
            lock.close();
            throw e;
        }
    }

    /** One agent per spool directory: two writers would interleave their records. */
    private static FileChannel lock(Path dir) throws IOException {
        FileChannel ch = FileChannel.open(
                dir.resolve("lock"), Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE), OWNER_ONLY);
        try {
            if (ch.tryLock() == null) {
                throw new IOException(
                        "spool " + dir + " is in use by another flowtrace agent (give each agent its own --spool-dir)");
            }
        } catch (OverlappingFileLockException e) {
            ch.close();
            throw new IOException("spool " + dir + " is already open in this process", e);
        } catch (IOException e) {
            ch.close();
            throw e;
        }
        return ch;
    }

    private static DiskSpool openLocked(Path dir, long maxBytes, RecordWeight weight)
            throws IOException, SpoolCorruptedException {
        TreeMap<Long, Path> files = SpoolRecovery.listSegments(dir);
        SpoolHead head = SpoolHead.read(dir);
        long torn = 0;
        // Segments before the head were consumed; a crash between writing the head and deleting them leaves them.
        for (Map.Entry<Long, Path> e :
                new ArrayList<>(files.headMap(head.segment()).entrySet())) {
            Files.delete(e.getValue());
            files.remove(e.getKey());
        }
        if (files.isEmpty()) {
            head.place(head.segment(), HEADER);
        } else if (!files.containsKey(head.segment())) {
            head.place(files.firstKey(), HEADER);
        }
        long records = 0;
        long items = 0;
        long bytes = 0;
        TreeMap<Long, Long> sizes = new TreeMap<>();
        for (Map.Entry<Long, Path> e : files.entrySet()) {
            boolean last = e.getKey().equals(files.lastKey());
            long from = e.getKey() == head.segment() ? head.offset() : HEADER;
            SpoolRecovery.SegmentScan scan = SpoolRecovery.scan(e.getValue(), from, last, weight);
            records += scan.records();
            items += scan.items();
            torn += scan.tornBytes();
            sizes.put(e.getKey(), scan.validEnd());
            bytes += scan.validEnd();
        }
        DiskSpool spool = new DiskSpool(dir, maxBytes, torn, weight, head);
        spool.segments.putAll(sizes);
        spool.totalBytes = bytes;
        spool.pendingRecords = records;
        spool.pendingItems = items;
        spool.tailId = files.isEmpty() ? head.segment() : files.lastKey();
        if (!files.isEmpty()) {
            spool.tail = FileChannel.open(files.lastEntry().getValue(), StandardOpenOption.WRITE);
            spool.tail.position(sizes.lastEntry().getValue());
        }
        return spool;
    }

    /** Appends one record; false (nothing written) when it would take the spool over its size limit. */
    public boolean append(byte[] key, byte[] value) throws IOException {
        return append(key, value, weight.items(value, 0, value.length));
    }

    /** As {@link #append(byte[], byte[])} when the caller knows the record's packets or events. */
    public synchronized boolean append(byte[] key, byte[] value, int items) throws IOException {
        requireOpen();
        int size = SegmentFormat.recordSize(key, value);
        if (totalBytes + size > maxBytes) {
            return false;
        }
        if (tail == null || segments.get(tailId) + size > segmentBytes && segments.get(tailId) > HEADER) {
            rollSegment();
        }
        if (writeBuffer.remaining() < size) {
            drainWriteBuffer();
        }
        if (size > writeBuffer.capacity()) {
            tail.write(SegmentFormat.encode(key, value, crc));
        } else {
            SegmentFormat.put(writeBuffer, key, value, crc);
        }
        segments.merge(tailId, (long) size, Long::sum);
        totalBytes += size;
        pendingRecords++;
        pendingItems += items;
        return true;
    }

    /**
     * Reads pending records from the head, in append order, without removing them: up to
     * {@code maxRecords} and about {@code maxBytes} (at least one record).
     */
    public synchronized SpoolBatch peek(int maxRecords, int maxBytes) throws IOException, SpoolCorruptedException {
        requireOpen();
        drainWriteBuffer();
        List<SpoolRecord> out = new ArrayList<>();
        long id = head.segment();
        long offset = head.offset();
        int bytes = 0;
        while (out.size() < maxRecords && bytes < maxBytes) {
            Long size = segments.get(id);
            if (size == null) {
                break;
            }
            if (offset >= size) {
                Long next = segments.higherKey(id);
                if (next == null) {
                    break;
                }
                id = next;
                offset = HEADER;
                continue;
            }
            Path file = SegmentFormat.segmentPath(dir, id);
            long after = SegmentFormat.read(file, id, offset, size, maxBytes - bytes, maxRecords, out, weight, crc);
            if (after == offset) {
                break;
            }
            bytes += (int) (after - offset);
            offset = after;
        }
        return new SpoolBatch(out);
    }

    /** Removes the records of {@code batch} (which must be the last {@link #peek}) and persists the new head. */
    public void commit(SpoolBatch batch) throws IOException {
        commit(batch, batch.records().size());
    }

    /** Removes the first {@code count} records of {@code batch} (the last {@link #peek}) and persists the new head. */
    public synchronized void commit(SpoolBatch batch, int count) throws IOException {
        requireOpen();
        if (count <= 0) {
            return;
        }
        if (count > batch.records().size()) {
            throw new IllegalArgumentException("commit of " + count + " records from a batch of "
                    + batch.records().size());
        }
        SpoolRecord last = batch.records().get(count - 1);
        if (head.isPast(last.segment(), last.endOffset())) {
            throw new IllegalStateException("commit behind the spool head: the batch was already committed");
        }
        pendingRecords -= count;
        for (int i = 0; i < count; i++) {
            pendingItems -= batch.records().get(i).items();
        }
        if (pendingRecords == 0) {
            pendingItems = 0;
            // Everything delivered: start over in a fresh segment so the spool gives its space back.
            long next = tailId + 1;
            head.moveTo(next, HEADER);
            closeTail();
            for (Long id : new ArrayList<>(segments.keySet())) {
                Files.deleteIfExists(SegmentFormat.segmentPath(dir, id));
            }
            segments.clear();
            totalBytes = 0;
            tailId = next;
            return;
        }
        head.moveTo(last.segment(), last.endOffset());
        for (Long id : new ArrayList<>(segments.headMap(head.segment()).keySet())) {
            Files.deleteIfExists(SegmentFormat.segmentPath(dir, id));
            totalBytes -= segments.remove(id);
        }
    }

    /** Writes buffered appends to the segment file (to the page cache; no fsync). */
    public synchronized void flush() throws IOException {
        if (!closed) {
            drainWriteBuffer();
        }
    }

    public synchronized long pendingRecords() {
        return pendingRecords;
    }

    /** Packets or events in the pending records (see {@link RecordWeight}). */
    public synchronized long pendingItems() {
        return pendingItems;
    }

    public synchronized boolean isEmpty() {
        return pendingRecords == 0;
    }

    /** Bytes the spool occupies on disk (consumed parts of the head segment included), for the size limit. */
    public synchronized long sizeBytes() {
        return totalBytes;
    }

    public long maxBytes() {
        return maxBytes;
    }

    /** Bytes of a torn last record cut off at open (a crash while appending), 0 normally. */
    public long recoveredTornBytes() {
        return recoveredTornBytes;
    }

    public Path directory() {
        return dir;
    }

    @Override
    public synchronized void close() throws IOException {
        if (!closed) {
            try {
                drainWriteBuffer();
                closeTail();
            } finally {
                closed = true;
                if (lockChannel != null) {
                    lockChannel.close();
                }
            }
        }
    }

    private void rollSegment() throws IOException {
        drainWriteBuffer();
        closeTail();
        if (segments.containsKey(tailId)) {
            tailId++;
        }
        Path file = SegmentFormat.segmentPath(dir, tailId);
        tail = FileChannel.open(file, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE), OWNER_ONLY);
        tail.write(ByteBuffer.wrap(SegmentFormat.MAGIC));
        segments.put(tailId, (long) HEADER);
        totalBytes += HEADER;
        if (segments.size() == 1) {
            head.place(tailId, HEADER);
        }
    }

    private void drainWriteBuffer() throws IOException {
        if (writeBuffer.position() == 0) {
            return;
        }
        writeBuffer.flip();
        while (writeBuffer.hasRemaining()) {
            tail.write(writeBuffer);
        }
        writeBuffer.clear();
    }

    private void closeTail() throws IOException {
        if (tail != null) {
            drainWriteBuffer();
            tail.close();
            tail = null;
        }
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("spool " + dir + " is closed");
        }
    }
}
