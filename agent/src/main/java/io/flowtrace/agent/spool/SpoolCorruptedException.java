package io.flowtrace.agent.spool;

import java.nio.file.Path;

/**
 * A spool file that does not hold what the spool wrote: bad magic, a record whose CRC does not
 * match, an impossible length, or an unreadable head checkpoint. Names the file and byte offset so
 * an operator can move the file aside (its records are then lost, which the agent cannot decide for
 * them).
 */
public final class SpoolCorruptedException extends Exception {
    private static final long serialVersionUID = 1L;

    private final transient Path file;
    private final long byteOffset;

    public SpoolCorruptedException(Path file, long byteOffset, String reason) {
        super("corrupt spool file " + file + " at byte offset " + byteOffset + ": " + reason
                + " (move the spool directory aside to start with an empty spool; its unsent records are then lost)");
        this.file = file;
        this.byteOffset = byteOffset;
    }

    public Path file() {
        return file;
    }

    public long byteOffset() {
        return byteOffset;
    }
}
