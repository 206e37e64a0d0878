package io.flowtrace.core.pcap;

/**
 * One captured frame as the reader hands it out. Mutable and reused for every record so the
 * read loop allocates nothing; copy what you need before the next call to
 * {@link CaptureReader#next(CaptureRecord)}.
 */
public final class CaptureRecord {
    /** Capture time, nanoseconds since the Unix epoch. */
    public long timestampNanos;
    /**
     * pcapng interface id (0 for classic pcap); for a LINUX_SLL2 frame (Linux's {@code any} device) of a
     * pcap, or of a pcapng with that one interface, the interface index of its SLL2 header instead.
     */
    public int interfaceId;
    /** LINKTYPE_* of the interface the frame was captured on. */
    public int linkType;
    /** Bytes captured (≤ snap length). */
    public int capturedLength;
    /** Bytes the frame had on the wire. */
    public int wireLength;
    /** 1-based record number, as tshark numbers frames. */
    public long recordNumber;
    /** Stream offset of the record's header. */
    public long byteOffset;
    /** The captured bytes are {@code data[dataOffset .. dataOffset + capturedLength)}. */
    public byte[] data;

    public int dataOffset;
}
