package io.flowtrace.core.pcap;

import java.io.IOException;
import java.io.InputStream;

/**
 * Classic libpcap format: microsecond (0xa1b2c3d4) and nanosecond (0xa1b23c4d) magic, either byte
 * order. Format reference: draft-ietf-opsawg-pcap.
 *
 * <p>A corrupt record header (an absurd captured length) is not fatal: the reader scans forward
 * for the next plausible header (sane timestamp near the last good one, lengths within the snap
 * length), checks that the record after it also looks sane, and resumes there.
 */
final class PcapReader implements CaptureReader {
    static final long MAGIC_MICROS = 0xa1b2c3d4L;
    static final long MAGIC_NANOS = 0xa1b23c4dL;
    /** libpcap's MAXIMUM_SNAPLEN: no valid record is longer. */
    static final int MAX_RECORD = 262_144;

    private static final int GLOBAL_HEADER = 24;
    private static final int RECORD_HEADER = 16;
    /** How far to scan for a plausible header after corruption before giving up. */
    private static final long MAX_RESYNC_SCAN = 8L << 20;
    /** A resynchronised header must be within a day of the last good record. */
    private static final long RESYNC_MAX_SKEW_SECONDS = 86_400;

    private final InputStream in;
    private final ByteSource src;
    private final CaptureErrorListener errors;
    private final boolean bigEndian;
    private final boolean nanos;
    private final int snapLength;
    private final int linkType;
    /** A timestamp's fraction is below this: a second in microseconds or nanoseconds. */
    private final long fractionLimit;

    private long recordNumber;
    private long lastGoodSeconds = -1;
    private long recovered;
    private boolean finished;

    static boolean isPcapMagic(long magicLe) {
        return magicLe == MAGIC_MICROS
                || magicLe == MAGIC_NANOS
                || magicLe == Long.reverseBytes(MAGIC_MICROS) >>> 32
                || magicLe == Long.reverseBytes(MAGIC_NANOS) >>> 32;
    }

    PcapReader(InputStream in, ByteSource src, CaptureErrorListener errors) throws IOException, CaptureFormatException {
        this.in = in;
        this.src = src;
        this.errors = errors;
        if (src.ensure(GLOBAL_HEADER) < GLOBAL_HEADER) {
            throw new CaptureFormatException("pcap global header truncated", 0, 0, false);
        }
        long magicLe = src.u32(0, false);
        this.bigEndian = !(magicLe == MAGIC_MICROS || magicLe == MAGIC_NANOS);
        long magic = src.u32(0, bigEndian);
        this.nanos = magic == MAGIC_NANOS;
        this.fractionLimit = nanos ? 1_000_000_000L : 1_000_000L;
        int major = src.u16(4, bigEndian);
        if (major != 2) {
            throw new CaptureFormatException(
                    "unsupported pcap version " + major + "." + src.u16(6, bigEndian), 4, 0, false);
        }
        long snap = src.u32(16, bigEndian);
        this.snapLength = snap == 0 || snap > MAX_RECORD ? MAX_RECORD : (int) snap;
        // Upper bits of the link-type field carry FCS information (pcap draft §4); the type is the low 16.
        this.linkType = (int) (src.u32(20, bigEndian) & 0xffff);
        src.skip(GLOBAL_HEADER);
    }

    @Override
    public boolean next(CaptureRecord into) throws IOException, CaptureFormatException {
        if (finished) {
            return false;
        }
        int avail = src.ensure(RECORD_HEADER);
        if (avail == 0) {
            finished = true;
            return false;
        }
        long headerOffset = src.offset();
        recordNumber++;
        if (avail < RECORD_HEADER) {
            return truncatedTail("record header truncated: " + avail + " of 16 bytes", headerOffset);
        }
        long seconds = src.u32(0, bigEndian);
        long fraction = src.u32(4, bigEndian);
        long capturedField = src.u32(8, bigEndian);
        long wire = src.u32(12, bigEndian);
        if (!saneLengths(fraction, capturedField)) {
            String reason = describeBadHeader();
            if (!resynchronise(headerOffset)) {
                finished = true;
                throw new CaptureFormatException(
                        reason + "; no plausible record header found after it", headerOffset, recordNumber, false);
            }
            recovered++;
            errors.onError(new CaptureFormatException(
                    reason + "; skipped " + (src.offset() - headerOffset) + " bytes to the next plausible record",
                    headerOffset,
                    recordNumber,
                    true));
            headerOffset = src.offset();
            seconds = src.u32(0, bigEndian);
            fraction = src.u32(4, bigEndian);
            capturedField = src.u32(8, bigEndian);
            wire = src.u32(12, bigEndian);
        }
        int captured = (int) capturedField;
        int have = src.ensure(RECORD_HEADER + captured);
        if (have < RECORD_HEADER + captured) {
            return truncatedTail(
                    "record data truncated: " + Math.max(0, have - RECORD_HEADER) + " of " + captured + " bytes",
                    headerOffset);
        }
        lastGoodSeconds = seconds;
        into.timestampNanos = seconds * 1_000_000_000L + (nanos ? fraction : fraction * 1000L);
        into.linkType = linkType;
        into.capturedLength = captured;
        into.wireLength = (int) Math.min(Integer.MAX_VALUE, Math.max(wire, captured));
        into.recordNumber = recordNumber;
        into.byteOffset = headerOffset;
        into.data = src.buffer();
        into.dataOffset = src.position() + RECORD_HEADER;
        into.interfaceId =
                linkType == LinkType.LINUX_SLL2 ? LinkType.sll2InterfaceIndex(into.data, into.dataOffset, captured) : 0;
        src.skip(RECORD_HEADER + captured);
        return true;
    }

    private boolean truncatedTail(String reason, long headerOffset) {
        finished = true;
        recovered++;
        errors.onError(new CaptureFormatException(reason + " at end of stream", headerOffset, recordNumber, true));
        return false;
    }

    private String describeBadHeader() {
        long captured = src.u32(8, bigEndian);
        long wire = src.u32(12, bigEndian);
        long fraction = src.u32(4, bigEndian);
        if (captured > snapLength) {
            return "absurd captured length " + captured + " (snap length " + snapLength + ")";
        }
        if (fraction >= fractionLimit) {
            return "timestamp fraction " + fraction + " out of range";
        }
        if (wire < captured) {
            return "wire length " + wire + " below captured length " + captured;
        }
        return "implausible record header (timestamp jumps more than a day)";
    }

    /** What every record header must have: a fraction below one second, a length within the snap length. */
    private boolean saneLengths(long fraction, long captured) {
        return captured <= snapLength && fraction < fractionLimit;
    }

    /**
     * The header at {@code at} bytes from the current position looks like a real record header to
     * resynchronise on: sane lengths, a wire length from the captured one to the largest record,
     * and a time within a day of the last good record.
     */
    private boolean plausibleHeader(int at) {
        long seconds = src.u32(at, bigEndian);
        long fraction = src.u32(at + 4, bigEndian);
        long captured = src.u32(at + 8, bigEndian);
        long wire = src.u32(at + 12, bigEndian);
        if (!saneLengths(fraction, captured) || wire < captured || wire > MAX_RECORD) {
            return false;
        }
        return lastGoodSeconds < 0 || Math.abs(seconds - lastGoodSeconds) <= RESYNC_MAX_SKEW_SECONDS;
    }

    /** Scans forward for a header that is plausible and followed by another plausible header or the end. */
    private boolean resynchronise(long badOffset) throws IOException {
        src.skip(1);
        while (src.offset() - badOffset < MAX_RESYNC_SCAN) {
            int avail = src.ensure(RECORD_HEADER);
            if (avail < RECORD_HEADER) {
                return false;
            }
            if (plausibleHeader(0)) {
                int captured = (int) src.u32(8, bigEndian);
                int after = src.ensure(RECORD_HEADER + captured + RECORD_HEADER);
                if (after == RECORD_HEADER + captured
                        || (after >= 2 * RECORD_HEADER + captured && plausibleHeader(RECORD_HEADER + captured))) {
                    return true;
                }
            }
            src.skip(1);
        }
        return false;
    }

    @Override
    public String formatDescription() {
        return "pcap (" + (nanos ? "nanosecond" : "microsecond") + ", " + (bigEndian ? "big" : "little")
                + "-endian, link type " + linkType + ", snap length " + snapLength + ")";
    }

    @Override
    public long recoveredErrors() {
        return recovered;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
