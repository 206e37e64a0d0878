package io.flowtrace.cli.conntrack;

import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;

/**
 * The input of {@code conntrack sizes}: conntrack -E text (gzip-compressed too), opened as strict
 * UTF-8 (a malformed byte is an error, not a replacement character), after refusing what is plainly
 * not conntrack -E output: a directory, a packet capture (pcap, pcapng, also inside gzip), a missing
 * or unreadable file.
 */
public final class ConntrackTextInput {
    private ConntrackTextInput() {}

    /** The input refused before reading: why, as the end of one line after the file name. */
    static final class NotTextException extends Exception {
        private static final long serialVersionUID = 1L;

        NotTextException(String message) {
            super(message);
        }
    }

    static BufferedReader open(String file) throws NotTextException {
        try {
            InputStream raw;
            if (file.equals("-")) {
                raw = System.in;
            } else {
                Path p = Path.of(file);
                if (Files.isDirectory(p)) {
                    throw new NotTextException(" is a directory (folder), not a file");
                }
                raw = Files.newInputStream(p);
            }
            BufferedInputStream in = new BufferedInputStream(raw, 1 << 16);
            boolean gzip = "gzip".equals(captureKind(peek(in)));
            if (gzip) {
                in = new BufferedInputStream(new GZIPInputStream(in), 1 << 16);
            }
            String capture = captureKind(peek(in));
            if (capture != null) {
                throw new NotTextException(" is a " + (gzip ? "gzip-compressed " : "") + "packet capture (" + capture
                        + "), not conntrack -E output; flowtrace analyze reads captures");
            }
            return new BufferedReader(new InputStreamReader(
                    in,
                    StandardCharsets.UTF_8
                            .newDecoder()
                            .onMalformedInput(CodingErrorAction.REPORT)
                            .onUnmappableCharacter(CodingErrorAction.REPORT)));
        } catch (NoSuchFileException e) {
            throw new NotTextException(": no such file");
        } catch (AccessDeniedException e) {
            throw new NotTextException(": permission denied");
        } catch (IOException e) {
            throw new NotTextException(": cannot read: " + e.getMessage());
        }
    }

    private static byte[] peek(BufferedInputStream in) throws IOException {
        in.mark(4);
        byte[] magic = in.readNBytes(4);
        in.reset();
        return magic;
    }

    /** "gzip", "pcap", "pcapng" by the first four bytes, or null for anything else. */
    private static String captureKind(byte[] m) {
        if (m.length >= 2 && (m[0] & 0xff) == 0x1f && (m[1] & 0xff) == 0x8b) {
            return "gzip";
        }
        if (m.length < 4) {
            return null;
        }
        long le = (m[0] & 0xffL) | (m[1] & 0xffL) << 8 | (m[2] & 0xffL) << 16 | (m[3] & 0xffL) << 24;
        if (le == 0x0a0d0d0aL) {
            return "pcapng";
        }
        long be = (m[3] & 0xffL) | (m[2] & 0xffL) << 8 | (m[1] & 0xffL) << 16 | (m[0] & 0xffL) << 24;
        for (long magic : new long[] {0xa1b2c3d4L, 0xa1b23c4dL}) {
            if (le == magic || be == magic) {
                return "pcap";
            }
        }
        return null;
    }
}
