package io.flowtrace.core.pcap;

/**
 * A capture file that does not follow its format. Always names where: the byte offset in the
 * stream and the number of the record (1-based, as tshark counts frames) that failed.
 */
public final class CaptureFormatException extends Exception {
    private static final long serialVersionUID = 1L;

    private final long byteOffset;
    private final long recordNumber;
    private final boolean recoverable;

    public CaptureFormatException(String reason, long byteOffset, long recordNumber, boolean recoverable) {
        super(reason + " (record " + recordNumber + ", byte offset " + byteOffset + ")");
        this.byteOffset = byteOffset;
        this.recordNumber = recordNumber;
        this.recoverable = recoverable;
    }

    public long byteOffset() {
        return byteOffset;
    }

    public long recordNumber() {
        return recordNumber;
    }

    /** True when reading went on past this error (the record was skipped or the reader resynchronised). */
    public boolean recoverable() {
        return recoverable;
    }
}
