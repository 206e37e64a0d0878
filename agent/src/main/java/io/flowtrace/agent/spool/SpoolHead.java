package io.flowtrace.agent.spool;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The spool's replay cursor: the segment and offset of the first record not yet acknowledged by
 * Kafka, persisted in the file {@code head} as "segmentId offset" and replaced atomically (write
 * {@code head.tmp}, rename), so a crash leaves the old or the new head, never half of one.
 */
final class SpoolHead {
    private final Path file;
    private long segment;
    private long offset;

    private SpoolHead(Path file, long segment, long offset) {
        this.file = file;
        this.segment = segment;
        this.offset = offset;
    }

    /** The head a previous run persisted in {@code dir}, or segment 0 right after the magic when there is none. */
    static SpoolHead read(Path dir) throws IOException, SpoolCorruptedException {
        Path file = dir.resolve("head");
        String text;
        try {
            text = Files.readString(file, StandardCharsets.US_ASCII).strip();
        } catch (NoSuchFileException e) {
            return new SpoolHead(file, 0, SegmentFormat.HEADER);
        }
        String[] parts = text.split(" ");
        try {
            long segment = Long.parseLong(parts[0]);
            long offset = Long.parseLong(parts[1]);
            if (parts.length != 2 || segment < 0 || offset < SegmentFormat.HEADER) {
                throw new NumberFormatException(text);
            }
            return new SpoolHead(file, segment, offset);
        } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
            throw new SpoolCorruptedException(file, 0, "head checkpoint is not \"segment offset\": '" + text + "'");
        }
    }

    long segment() {
        return segment;
    }

    long offset() {
        return offset;
    }

    /** True when a record ending at {@code endOffset} of {@code recordSegment} lies before or at the head. */
    boolean isPast(long recordSegment, long endOffset) {
        return recordSegment < segment || (recordSegment == segment && endOffset <= offset);
    }

    /** Moves the head in memory only: where it already is on disk, or where the next record will be. */
    void place(long newSegment, long newOffset) {
        segment = newSegment;
        offset = newOffset;
    }

    /** Persists a new head, then moves to it. */
    void moveTo(long newSegment, long newOffset) throws IOException {
        Path tmp = file.resolveSibling("head.tmp");
        Files.writeString(tmp, newSegment + " " + newOffset + "\n", StandardCharsets.US_ASCII);
        try {
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
        }
        place(newSegment, newOffset);
    }
}
