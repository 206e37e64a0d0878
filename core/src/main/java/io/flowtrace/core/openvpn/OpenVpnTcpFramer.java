package io.flowtrace.core.openvpn;

/**
 * OpenVPN over TCP (proto tcp): each OpenVPN packet is preceded by its length as a 2-byte
 * big-endian integer on the TCP stream (src/openvpn/socket.h, stream_buf / "packet length" prefix;
 * the same opcode/session-id layout follows as over UDP). One framer per direction of a TCP
 * connection: it takes the payload of each captured segment with its sequence number, in capture
 * order, drops what a retransmission repeats, and hands every complete packet to the sink, ready
 * for {@link OpenVpnHeaderDecoder}. A packet may span segments and a segment may hold several.
 *
 * <p>A gap in the stream (a segment the capture missed, or a snap length that cut the payload)
 * loses the framing: the length prefixes cannot be found again with certainty, so the direction
 * stops framing and counts it ({@link #desynchronised()}); never an exception. Memory: one buffer
 * of the prefix and the first {@code kept} bytes of a packet (at most 65,535): the header is all
 * the analysis reads, so the analysis and the agent keep {@link OpenVpnTcpStreams#KEPT_BYTES}.
 */
public final class OpenVpnTcpFramer {
    @FunctionalInterface
    public interface PacketSink {
        /**
         * One OpenVPN packet of {@code length} bytes, of which the first {@code kept} are
         * {@code b[off, off + kept)}, completed by the segment captured at {@code timeNanos}.
         */
        void onPacket(byte[] b, int off, int kept, int length, long timeNanos);
    }

    private static final int PREFIX = 2;
    private static final int MAX_PACKET = 0xffff;
    private final byte[] buf;
    private final PacketSink sink;
    /** Bytes of the current frame consumed (prefix included); the first {@code buf.length} are kept. */
    private int have;
    /** Next expected sequence number (32-bit, as on the wire); -1 before the first segment. */
    private long nextSeq = -1;

    private boolean desynchronised;
    private long packets;
    private long repeatedBytes;

    /** A framer that keeps whole packets. */
    public OpenVpnTcpFramer(PacketSink sink) {
        this(MAX_PACKET, sink);
    }

    /** A framer that keeps the first {@code kept} bytes of each packet (1 to 65,535). */
    public OpenVpnTcpFramer(int kept, PacketSink sink) {
        if (kept < 1 || kept > MAX_PACKET) {
            throw new IllegalArgumentException("kept bytes must be 1..65535: " + kept);
        }
        this.buf = new byte[PREFIX + kept];
        this.sink = sink;
    }

    /**
     * The captured payload {@code data[off, off + len)} of one segment whose first byte has
     * sequence number {@code seq}; the first segment fed must start a frame (the first data after
     * the handshake). {@code wireLen} is the payload length on the wire: less captured than that
     * is a gap.
     */
    public void onSegment(long seq, byte[] data, int off, int len, int wireLen, long timeNanos) {
        if (desynchronised || wireLen == 0) {
            return;
        }
        seq &= 0xffffffffL;
        if (nextSeq < 0) {
            nextSeq = seq;
        }
        long ahead = (seq - nextSeq) << 32 >> 32; // signed 32-bit distance: sequence numbers wrap
        if (ahead > 0) {
            desynchronised = true; // bytes before this segment were never seen
            return;
        }
        int skip = (int) Math.min(-ahead, wireLen);
        repeatedBytes += skip;
        if (skip == wireLen) {
            return; // a retransmission of bytes already framed
        }
        if (len < wireLen) {
            desynchronised = true; // the snap length cut the stream
            return;
        }
        nextSeq = (nextSeq + (wireLen - skip)) & 0xffffffffL;
        for (int p = off + skip, end = off + wireLen; p < end; ) {
            int n = Math.min(end - p, need());
            if (have < buf.length) {
                System.arraycopy(data, p, buf, have, Math.min(n, buf.length - have));
            }
            have += n;
            p += n;
            if (have >= PREFIX && have == PREFIX + length()) {
                packets++;
                sink.onPacket(buf, PREFIX, Math.min(length(), buf.length - PREFIX), length(), timeNanos);
                have = 0;
            }
        }
    }

    /** Bytes the current frame still needs: the prefix first, then its packet. */
    private int need() {
        return have < PREFIX ? PREFIX - have : PREFIX + length() - have;
    }

    private int length() {
        return (buf[0] & 0xff) << 8 | (buf[1] & 0xff);
    }

    /** True once a gap ended the framing of this direction. */
    public boolean desynchronised() {
        return desynchronised;
    }

    public long packets() {
        return packets;
    }

    /** Payload bytes of retransmitted segments that were already framed. */
    public long repeatedBytes() {
        return repeatedBytes;
    }
}
