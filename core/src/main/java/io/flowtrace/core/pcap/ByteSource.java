package io.flowtrace.core.pcap;

import java.io.IOException;
import java.io.InputStream;

/**
 * A small buffered reader over any InputStream (file, stdin pipe, socket) with look-ahead, so
 * the capture readers can peek at a header, resynchronise after corruption, and hand out record
 * bytes without copying or allocating per record. Hand-written because BufferedInputStream has
 * no look-ahead beyond mark/reset and we need absolute offsets for error messages.
 */
final class ByteSource {
    private final InputStream in;
    private byte[] buf;
    private int pos;
    private int limit;
    private long consumedBefore; // stream offset of buf[0]
    private boolean eof;

    ByteSource(InputStream in, int initialCapacity) {
        this.in = in;
        this.buf = new byte[initialCapacity];
    }

    /** Stream offset of the next unread byte. */
    long offset() {
        return consumedBefore + pos;
    }

    byte[] buffer() {
        return buf;
    }

    int position() {
        return pos;
    }

    /**
     * Makes at least {@code n} bytes available from the current position.
     *
     * @return the number available, less than n only at end of stream
     */
    int ensure(int n) throws IOException {
        if (limit - pos >= n) {
            return limit - pos;
        }
        if (pos > 0) {
            System.arraycopy(buf, pos, buf, 0, limit - pos);
            consumedBefore += pos;
            limit -= pos;
            pos = 0;
        }
        // Grow only as data actually arrives, so a corrupt length field cannot make us allocate
        // a huge buffer for a short stream.
        while (limit < n && !eof) {
            if (limit == buf.length) {
                byte[] bigger =
                        new byte[(int) Math.min(Math.max((long) buf.length * 2, 1024), Math.max(n, buf.length))];
                System.arraycopy(buf, 0, bigger, 0, limit);
                buf = bigger;
            }
            int r = in.read(buf, limit, buf.length - limit);
            if (r < 0) {
                eof = true;
            } else {
                limit += r;
            }
        }
        return limit - pos;
    }

    void skip(int n) {
        pos += n;
    }

    /** Skips n bytes that may be more than the buffer holds; returns how many were skipped. */
    long skipLong(long n) throws IOException {
        long skipped = 0;
        while (skipped < n) {
            int avail = ensure((int) Math.min(n - skipped, buf.length));
            if (avail == 0) {
                break;
            }
            int step = (int) Math.min(avail, n - skipped);
            pos += step;
            skipped += step;
        }
        return skipped;
    }

    boolean atEnd() throws IOException {
        return ensure(1) == 0;
    }

    int u8(int at) {
        return buf[pos + at] & 0xff;
    }

    int u16(int at, boolean bigEndian) {
        int a = buf[pos + at] & 0xff;
        int b = buf[pos + at + 1] & 0xff;
        return bigEndian ? (a << 8) | b : (b << 8) | a;
    }

    long u32(int at, boolean bigEndian) {
        return i32(at, bigEndian) & 0xffffffffL;
    }

    int i32(int at, boolean bigEndian) {
        int a = buf[pos + at] & 0xff;
        int b = buf[pos + at + 1] & 0xff;
        int c = buf[pos + at + 2] & 0xff;
        int d = buf[pos + at + 3] & 0xff;
        return bigEndian ? (a << 24) | (b << 16) | (c << 8) | d : (d << 24) | (c << 16) | (b << 8) | a;
    }
}
