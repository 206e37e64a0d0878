package io.flowtrace.cli.capture;

import com.github.luben.zstd.ZstdInputStream;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Locale;
import java.util.zip.GZIPInputStream;
import net.jpountz.lz4.LZ4FrameInputStream;

/**
 * What a capture file starts with. Wireshark reads gzip, zstd and lz4 (frame format) captures, and
 * so does every reader of a capture here (analyze, its --report, the agents' replay); xz and bzip2
 * are named, so the user knows to decompress first, instead of "not a pcap file: magic 0xfd377a58".
 */
public enum CaptureCompression {
    NONE,
    GZIP,
    ZSTD,
    LZ4,
    XZ,
    BZIP2;

    private static final int MAGIC_BYTES = 6;
    private static final int BUFFER = 1 << 16;

    /** The compression {@code in} starts with; {@code in} is left where it was (mark/reset). */
    public static CaptureCompression of(BufferedInputStream in) throws IOException {
        in.mark(MAGIC_BYTES);
        byte[] m = in.readNBytes(MAGIC_BYTES);
        in.reset();
        return of(m);
    }

    static CaptureCompression of(byte[] m) {
        if (starts(m, 0x1f, 0x8b)) { // RFC 1952 2.3.1
            return GZIP;
        }
        if (starts(m, 0x28, 0xb5, 0x2f, 0xfd)) { // RFC 8878 3.1.1: 0xFD2FB528, little-endian
            return ZSTD;
        }
        if (starts(m, 0x04, 0x22, 0x4d, 0x18)) { // LZ4 frame format: 0x184D2204, little-endian
            return LZ4;
        }
        if (starts(m, 0xfd, '7', 'z', 'X', 'Z', 0x00)) { // the .xz file format, 2.1.1.1
            return XZ;
        }
        if (starts(m, 'B', 'Z', 'h')) {
            return BZIP2;
        }
        return NONE;
    }

    /** A capture's bytes, decompressed when compressed: for the readers that need only the bytes. */
    public static InputStream open(InputStream raw) throws IOException {
        BufferedInputStream buffered = new BufferedInputStream(raw, BUFFER);
        return of(buffered).decompress(buffered);
    }

    /** {@code in} decompressed; an {@link UnsupportedCompressionException} for xz and bzip2. */
    public InputStream decompress(BufferedInputStream in) throws IOException {
        return switch (this) {
            case NONE -> in;
            case GZIP -> new GZIPInputStream(in, BUFFER);
            case ZSTD -> new ZstdInputStream(in);
            case LZ4 -> new LZ4FrameInputStream(in);
            case XZ ->
                throw new UnsupportedCompressionException(
                        "xz-compressed: decompress it first (xz -dk FILE, or xz -dc FILE | flowtrace analyze -)");
            case BZIP2 ->
                throw new UnsupportedCompressionException(
                        "bzip2-compressed: decompress it first (bzip2 -dk FILE, or bzip2 -dc FILE | flowtrace analyze -)");
        };
    }

    /** The name in messages ("the zstd stream ends early"). */
    String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    private static boolean starts(byte[] m, int... expected) {
        if (m.length < expected.length) {
            return false;
        }
        for (int i = 0; i < expected.length; i++) {
            if ((m[i] & 0xff) != expected[i]) {
                return false;
            }
        }
        return true;
    }

    /** A compression that is named but not read: the message is the one line for the user. */
    public static final class UnsupportedCompressionException extends IOException {
        private static final long serialVersionUID = 1L;

        UnsupportedCompressionException(String message) {
            super(message);
        }
    }
}
