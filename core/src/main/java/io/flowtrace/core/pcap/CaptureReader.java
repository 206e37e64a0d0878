package io.flowtrace.core.pcap;

import java.io.BufferedInputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.util.Locale;
import java.util.zip.GZIPInputStream;

/**
 * Streaming reader of pcap or pcapng captures. Reads record by record from any InputStream (a
 * file, a {@code tcpdump -w -} pipe); never loads the whole capture.
 */
public interface CaptureReader extends Closeable {

    /**
     * Reads the next record into {@code into}.
     *
     * @return false at end of stream (also after a truncated last record, which is reported to the
     *     error listener)
     * @throws CaptureFormatException when the stream cannot be read any further
     */
    boolean next(CaptureRecord into) throws IOException, CaptureFormatException;

    /** Human-readable format, e.g. "pcap (nanosecond, big-endian)". */
    String formatDescription();

    /** Errors recovered from so far. */
    long recoveredErrors();

    /**
     * Opens a reader, choosing pcap or pcapng from the magic number.
     *
     * @throws CaptureFormatException when the stream starts with neither
     */
    static CaptureReader open(InputStream in, CaptureErrorListener errors) throws IOException, CaptureFormatException {
        in = gunzipIfCompressed(in);
        // 1 MiB: reads this large pass straight through the BufferedInputStreams below (theirs are
        // 64 KiB), two copies of every byte fewer than with a 64 KiB buffer (docs/BENCHMARKS.md).
        ByteSource src = new ByteSource(in, 1 << 20);
        if (src.ensure(4) < 4) {
            throw new CaptureFormatException("empty or too short to be a capture file", 0, 0, false);
        }
        long magicLe = src.u32(0, false);
        if (magicLe == PcapngReader.SHB_TYPE) {
            return new PcapngReader(in, src, errors);
        }
        if (PcapReader.isPcapMagic(magicLe)) {
            return new PcapReader(in, src, errors);
        }
        throw new CaptureFormatException(
                String.format(Locale.ROOT, "not a pcap or pcapng file: magic 0x%08x", src.u32(0, true)), 0, 0, false);
    }

    static CaptureReader open(InputStream in) throws IOException, CaptureFormatException {
        return open(in, CaptureErrorListener.IGNORE);
    }

    /** Captures are often stored gzip-compressed (tcpdump -w - | gzip); read them as tshark does. */
    private static InputStream gunzipIfCompressed(InputStream in) throws IOException {
        BufferedInputStream buffered = new BufferedInputStream(in, 1 << 16);
        buffered.mark(2);
        int b0 = buffered.read();
        int b1 = buffered.read();
        buffered.reset();
        if (b0 == 0x1f && b1 == 0x8b) {
            return new GZIPInputStream(buffered, 1 << 16);
        }
        return buffered;
    }
}
