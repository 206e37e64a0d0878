package io.flowtrace.cli.capture;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.ZipException;

/**
 * One capture named on the command line, opened as tshark would: {@code -} is standard input, a
 * directory or a missing file is refused with one line, a gzip-, zstd- or lz4-compressed file is
 * decompressed (xz and bzip2 are named, not read), and a compressed stream that ends early (a copy cut short, a capture still being written) ends the input
 * where it ends, so the records before the cut are analysed and the cut is reported, not thrown.
 */
public final class CaptureInput implements AutoCloseable {
    private final String name;
    private final InputStream stream;
    private final long size;
    private final AtomicLong bytesRead = new AtomicLong();
    private volatile String cutShort;

    private CaptureInput(String name, InputStream raw, long size) throws IOException {
        this.name = name;
        this.size = size;
        BufferedInputStream buffered = new BufferedInputStream(new CountingInputStream(raw, bytesRead), 1 << 16);
        CaptureCompression compression = CaptureCompression.of(buffered);
        this.stream = compression == CaptureCompression.NONE
                ? buffered
                : new CutTolerant(compression.decompress(buffered), compression.label());
    }

    /** A file the user named cannot be opened: the one line to print. */
    public static final class UnreadableInputException extends Exception {
        private static final long serialVersionUID = 1L;

        UnreadableInputException(String message) {
            super(message);
        }
    }

    public static CaptureInput open(String file) throws UnreadableInputException {
        try {
            if (file.equals("-")) {
                return new CaptureInput("-", System.in, -1);
            }
            Path p = Path.of(file);
            if (Files.isDirectory(p)) {
                throw new UnreadableInputException("\"" + file + "\" is a directory (folder), not a file");
            }
            return new CaptureInput(file, Files.newInputStream(p), Files.size(p));
        } catch (NoSuchFileException e) {
            throw new UnreadableInputException("\"" + file + "\": no such file");
        } catch (AccessDeniedException e) {
            throw new UnreadableInputException("\"" + file + "\": permission denied");
        } catch (EOFException e) {
            throw new UnreadableInputException("\"" + file + "\": gzip header cut short; nothing could be read");
        } catch (ZipException e) {
            throw new UnreadableInputException("\"" + file + "\": not a readable gzip file (" + e.getMessage() + ")");
        } catch (CaptureCompression.UnsupportedCompressionException e) {
            throw new UnreadableInputException("\"" + file + "\": " + e.getMessage());
        } catch (IOException e) {
            throw new UnreadableInputException("\"" + file + "\": cannot read: " + e.getMessage());
        }
    }

    public String name() {
        return name;
    }

    public InputStream stream() {
        return stream;
    }

    /** The file's size in bytes (compressed size for .gz), -1 for standard input. */
    public long size() {
        return size;
    }

    /** Bytes read from the file so far (compressed bytes for .gz): for progress against {@link #size()}. */
    public long bytesRead() {
        return bytesRead.get();
    }

    /** Why the gzip stream ended before its end, or null when it did not. */
    String cutShort() {
        return cutShort;
    }

    @Override
    public void close() throws IOException {
        if (!name.equals("-")) {
            stream.close();
        }
    }

    /**
     * Turns the inflater's "Unexpected end of ZLIB input stream" (a truncated file) and a corrupt
     * deflate block into the end of the stream, remembering why; the capture reader then sees a
     * short last record, as it would in an uncompressed file cut at the same place.
     */
    private final class CutTolerant extends FilterInputStream {
        private final String format;

        CutTolerant(InputStream in, String format) {
            super(in);
            this.format = format;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (cutShort != null) {
                return -1;
            }
            try {
                return super.read(b, off, len);
            } catch (EOFException e) {
                cutShort = "the " + format + " stream ends early";
                return -1;
            } catch (ZipException e) {
                cutShort = "the " + format + " stream is corrupt (" + e.getMessage() + ")";
                return -1;
            } catch (IOException e) {
                if (format.equals("gzip")) {
                    throw e; // a read error of the file itself
                }
                // zstd-jni and lz4-java say both a cut and a corrupt frame with a plain IOException
                cutShort = "the " + format + " stream ends early or is corrupt (" + e.getMessage() + ")";
                return -1;
            }
        }
    }
}
