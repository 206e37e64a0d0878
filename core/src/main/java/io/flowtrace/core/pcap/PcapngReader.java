package io.flowtrace.core.pcap;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.Locale;

/**
 * pcapng (draft-ietf-opsawg-pcapng): Section Header, Interface Description, Enhanced Packet,
 * Simple Packet and the obsolete Packet block; other blocks are skipped by their length. Several
 * sections and any number of interfaces, each with its own link type, if_tsresol and if_tsoffset.
 *
 * <p>A block with an absurd length is not fatal: the reader scans forward (4-byte aligned) for a
 * block whose type is known and whose leading and trailing lengths agree, and resumes there.
 */
final class PcapngReader implements CaptureReader {
    static final long SHB_TYPE = 0x0A0D0D0AL;
    private static final long BYTE_ORDER_MAGIC = 0x1A2B3C4DL;
    private static final int IDB = 1;
    private static final int OBSOLETE_PB = 2;
    private static final int SPB = 3;
    private static final int EPB = 6;
    private static final int OPT_END = 0;
    private static final int OPT_IF_TSRESOL = 9;
    private static final int OPT_IF_TSOFFSET = 14;
    /** Larger than any real block; a length beyond this is corruption, not data. */
    private static final int MAX_BLOCK = 16 << 20;

    private static final long MAX_RESYNC_SCAN = 8L << 20;

    private final InputStream in;
    private final ByteSource src;
    private final CaptureErrorListener errors;
    private boolean bigEndian;
    private int interfaceCount;
    private int[] linkTypes = new int[4];
    private int[] snapLengths = new int[4];
    /** if_tsresol byte: bit 7 clear → 10^-n seconds, set → 2^-n seconds. */
    private int[] tsResolutions = new int[4];

    private long[] tsOffsetSeconds = new long[4];
    private long recordNumber;
    private long recovered;
    private int sections;
    private boolean finished;

    PcapngReader(InputStream in, ByteSource src, CaptureErrorListener errors) {
        this.in = in;
        this.src = src;
        this.errors = errors;
    }

    @Override
    public boolean next(CaptureRecord into) throws IOException, CaptureFormatException {
        while (!finished) {
            int avail = src.ensure(12);
            if (avail == 0) {
                finished = true;
                return false;
            }
            long blockOffset = src.offset();
            if (avail < 12) {
                return truncatedTail("block header truncated: " + avail + " bytes", blockOffset);
            }
            long type = src.u32(0, bigEndian);
            if (type == SHB_TYPE) {
                readSectionHeader(blockOffset);
                continue;
            }
            if (sections == 0) {
                throw new CaptureFormatException(
                        "pcapng stream does not start with a section header", blockOffset, 0, false);
            }
            long length = src.u32(4, bigEndian);
            if (length < 12 || length > MAX_BLOCK || (length & 3) != 0) {
                String reason = "absurd block length " + length + " for block type " + type;
                if (!resynchronise(blockOffset)) {
                    finished = true;
                    throw new CaptureFormatException(
                            reason + "; no valid block found after it", blockOffset, recordNumber + 1, false);
                }
                recovered++;
                errors.onError(new CaptureFormatException(
                        reason + "; skipped " + (src.offset() - blockOffset) + " bytes to the next valid block",
                        blockOffset,
                        recordNumber + 1,
                        true));
                continue;
            }
            int len = (int) length;
            int have = src.ensure(len);
            if (have < len) {
                if (type == EPB || type == SPB || type == OBSOLETE_PB) {
                    recordNumber++;
                }
                return truncatedTail(
                        "block of type " + type + " truncated: " + have + " of " + len + " bytes", blockOffset);
            }
            if (src.u32(len - 4, bigEndian) != length) {
                recovered++;
                errors.onError(new CaptureFormatException(
                        "block trailing length " + src.u32(len - 4, bigEndian) + " differs from leading length "
                                + length,
                        blockOffset,
                        recordNumber + 1,
                        true));
            }
            switch ((int) type) {
                case IDB -> readInterface(len, blockOffset);
                case EPB, OBSOLETE_PB, SPB -> {
                    recordNumber++;
                    if (readPacket((int) type, len, blockOffset, into)) {
                        src.skip(len);
                        return true;
                    }
                }
                default -> {} // statistics, name resolution, custom, decryption secrets: not ours
            }
            src.skip(len);
        }
        return false;
    }

    private void readSectionHeader(long offset) throws IOException, CaptureFormatException {
        if (src.ensure(28) < 28) {
            finished = true;
            throw new CaptureFormatException("section header block truncated", offset, recordNumber, false);
        }
        long bomLe = src.u32(8, false);
        if (bomLe == BYTE_ORDER_MAGIC) {
            bigEndian = false;
        } else if (bomLe == (Long.reverseBytes(BYTE_ORDER_MAGIC) >>> 32)) {
            bigEndian = true;
        } else {
            throw new CaptureFormatException(
                    String.format(Locale.ROOT, "bad pcapng byte-order magic 0x%08x", bomLe),
                    offset + 8,
                    recordNumber,
                    false);
        }
        int major = src.u16(12, bigEndian);
        if (major != 1) {
            throw new CaptureFormatException("unsupported pcapng version " + major, offset + 12, recordNumber, false);
        }
        long length = src.u32(4, bigEndian);
        if (length < 28 || length > MAX_BLOCK || (length & 3) != 0) {
            throw new CaptureFormatException("absurd section header length " + length, offset + 4, recordNumber, false);
        }
        if (src.ensure((int) length) < length) {
            finished = true;
            throw new CaptureFormatException("section header block truncated", offset, recordNumber, false);
        }
        sections++;
        interfaceCount = 0;
        src.skip((int) length);
    }

    private void readInterface(int len, long offset) {
        if (interfaceCount == linkTypes.length) {
            int n = interfaceCount * 2;
            linkTypes = Arrays.copyOf(linkTypes, n);
            snapLengths = Arrays.copyOf(snapLengths, n);
            tsResolutions = Arrays.copyOf(tsResolutions, n);
            tsOffsetSeconds = Arrays.copyOf(tsOffsetSeconds, n);
        }
        int i = interfaceCount++;
        linkTypes[i] = src.u16(8, bigEndian);
        snapLengths[i] = (int) Math.min(src.u32(12, bigEndian), Integer.MAX_VALUE);
        tsResolutions[i] = 6;
        tsOffsetSeconds[i] = 0;
        int at = 16;
        int end = len - 4;
        while (at + 4 <= end) {
            int code = src.u16(at, bigEndian);
            int optLen = src.u16(at + 2, bigEndian);
            if (code == OPT_END || at + 4 + optLen > end) {
                break;
            }
            if (code == OPT_IF_TSRESOL && optLen >= 1) {
                tsResolutions[i] = src.u8(at + 4);
            } else if (code == OPT_IF_TSOFFSET && optLen >= 8) {
                long hi = src.u32(at + 4, bigEndian);
                long lo = src.u32(at + 8, bigEndian);
                tsOffsetSeconds[i] = bigEndian ? (hi << 32) | lo : (lo << 32) | hi;
            }
            at += 4 + ((optLen + 3) & ~3);
        }
    }

    private boolean readPacket(int type, int len, long offset, CaptureRecord into) throws CaptureFormatException {
        long iface;
        long tsUnits = 0;
        int captured;
        long wire;
        int dataAt;
        switch (type) {
            case EPB -> {
                iface = src.u32(8, bigEndian);
                tsUnits = (src.u32(12, bigEndian) << 32) | src.u32(16, bigEndian);
                captured = (int) Math.min(src.u32(20, bigEndian), Integer.MAX_VALUE);
                wire = src.u32(24, bigEndian);
                dataAt = 28;
            }
            case OBSOLETE_PB -> {
                iface = src.u16(8, bigEndian);
                tsUnits = (src.u32(12, bigEndian) << 32) | src.u32(16, bigEndian);
                captured = (int) Math.min(src.u32(20, bigEndian), Integer.MAX_VALUE);
                wire = src.u32(24, bigEndian);
                dataAt = 28;
            }
            default -> { // SPB: no timestamp, interface 0, captured = min(wire, snaplen, block body)
                iface = 0;
                wire = src.u32(8, bigEndian);
                dataAt = 12;
                captured = (int) Math.min(wire, len - 16);
                if (interfaceCount > 0 && snapLengths[0] > 0) {
                    captured = Math.min(captured, snapLengths[0]);
                }
            }
        }
        if (iface >= interfaceCount) {
            recovered++;
            errors.onError(new CaptureFormatException(
                    "packet refers to undeclared interface " + iface + " (" + interfaceCount + " declared); skipped",
                    offset,
                    recordNumber,
                    true));
            return false;
        }
        if (captured < 0 || dataAt + captured > len - 4) {
            recovered++;
            errors.onError(new CaptureFormatException(
                    "captured length " + captured + " exceeds block length " + len + "; skipped",
                    offset,
                    recordNumber,
                    true));
            return false;
        }
        int i = (int) iface;
        into.timestampNanos =
                type == SPB ? 0 : toNanos(tsUnits, tsResolutions[i]) + tsOffsetSeconds[i] * 1_000_000_000L;
        into.interfaceId = i;
        into.linkType = linkTypes[i];
        into.capturedLength = captured;
        into.wireLength = (int) Math.min(Integer.MAX_VALUE, Math.max(wire, captured));
        into.recordNumber = recordNumber;
        into.byteOffset = offset;
        into.data = src.buffer();
        into.dataOffset = src.position() + dataAt;
        if (interfaceCount == 1 && linkTypes[0] == LinkType.LINUX_SLL2) {
            // dumpcap -i any -y LINUX_SLL2: one pcapng interface ("any") carrying many; as in a pcap.
            // With more pcapng interfaces their ids stay the pcapng's (the two id spaces would mix).
            into.interfaceId = LinkType.sll2InterfaceIndex(into.data, into.dataOffset, captured);
        }
        return true;
    }

    /** Converts if_tsresol units to nanoseconds (pcapng draft §4.2, option if_tsresol). */
    static long toNanos(long units, int tsresol) {
        int exp = tsresol & 0x7f;
        if ((tsresol & 0x80) == 0) {
            if (exp <= 9) {
                long mul = 1;
                for (int k = exp; k < 9; k++) {
                    mul *= 10;
                }
                return units * mul;
            }
            long div = 1;
            for (int k = 9; k < exp && k < 28; k++) {
                div *= 10;
            }
            return exp >= 28 ? 0 : units / div;
        }
        if (exp >= 63) {
            return 0;
        }
        long whole = units >>> exp;
        long frac = units & ((1L << exp) - 1);
        long fracNanos = exp <= 33 ? (frac * 1_000_000_000L) >>> exp : (long) (frac / Math.pow(2, exp) * 1e9);
        return whole * 1_000_000_000L + fracNanos;
    }

    private boolean truncatedTail(String reason, long offset) {
        finished = true;
        recovered++;
        errors.onError(new CaptureFormatException(reason + " at end of stream", offset, recordNumber, true));
        return false;
    }

    private boolean resynchronise(long badOffset) throws IOException {
        src.skip(4);
        while (src.offset() - badOffset < MAX_RESYNC_SCAN) {
            if (src.ensure(12) < 12) {
                return false;
            }
            long type = src.u32(0, bigEndian);
            long length = src.u32(4, bigEndian);
            boolean known = type == IDB
                    || type == EPB
                    || type == SPB
                    || type == OBSOLETE_PB
                    || type == 4
                    || type == 5
                    || type == SHB_TYPE;
            if (known
                    && length >= 12
                    && length <= MAX_BLOCK
                    && (length & 3) == 0
                    && src.ensure((int) length) >= length
                    && src.u32((int) length - 4, bigEndian) == length) {
                return true;
            }
            src.skip(4);
        }
        return false;
    }

    @Override
    public String formatDescription() {
        return "pcapng (" + (bigEndian ? "big" : "little") + "-endian, " + interfaceCount + " interface(s))";
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
