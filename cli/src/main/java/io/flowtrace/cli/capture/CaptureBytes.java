package io.flowtrace.cli.capture;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.LongConsumer;

/**
 * A capture file read for a progress bar that agrees with the frames read (the agent's and the
 * demo's replays). The bar counts the
 * capture's own bytes (inflated for .gz) and stands, at each read, at the bytes read before it:
 * the reader asks for more only once it has parsed what it holds, so the frames counted so far are
 * those bytes' frames. Counting compressed bytes instead, the gzip and reader buffers (64 KiB each)
 * run ahead: a 114 KiB .gz stood at 56 % with 0 frames read.
 */
public final class CaptureBytes {
    private static final int BUFFER = 1 << 16;

    private CaptureBytes() {}

    /**
     * The capture's size in its own bytes: the file's size, or for gzip the ISIZE of its trailer
     * (the uncompressed length mod 2^32, RFC 1952 section 2.3.1; a guide for the bar only).
     */
    public static long size(Path file) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
            long length = f.length();
            if (length < 18 || f.read() != 0x1f || f.read() != 0x8b) {
                return length;
            }
            f.seek(length - 4);
            byte[] isize = new byte[4];
            f.readFully(isize);
            return (isize[0] & 0xffL) | (isize[1] & 0xffL) << 8 | (isize[2] & 0xffL) << 16 | (isize[3] & 0xffL) << 24;
        }
    }

    /** The capture's own bytes (decompressed when gzip-, zstd- or lz4-compressed); {@code beforeRead} gets the count before each read. */
    public static InputStream open(Path file, LongConsumer beforeRead) throws IOException {
        InputStream capture = CaptureCompression.open(Files.newInputStream(file));
        return new FilterInputStream(capture) {
            private long count;

            /**
             * None announced: a BufferedInputStream above (the reader's gzip check) then reads once per
             * call instead of looping on to fill the whole request before the reader parsed any of it.
             */
            @Override
            public int available() {
                return 0;
            }

            @Override
            public int read() throws IOException {
                beforeRead.accept(count);
                int b = super.read();
                if (b >= 0) {
                    count++;
                }
                return b;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                beforeRead.accept(count);
                int n = super.read(b, off, len);
                if (n > 0) {
                    count += n;
                }
                return n;
            }
        };
    }
}
