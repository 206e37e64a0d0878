package io.flowtrace.core.openvpn;

import io.flowtrace.core.pcap.DecodeStatus;
import io.flowtrace.core.pcap.DecodedPacket;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * OpenVPN over TCP: the segments of each TCP connection on an OpenVPN port, one
 * {@link OpenVpnTcpFramer} per direction, each framed packet read as a UDP datagram would be and
 * handed on with the segment that completed it. A segment whose bytes were all framed before is a
 * TCP retransmission: counted on the connection's current session
 * ({@link OpenVpnDirectionStats#tcpRetransmits()}), never as a control-channel one (over TCP
 * OpenVPN does not resend control packets itself; the framer drops the repeated bytes, so a
 * message packet-id is seen once). A SYN starts the connection's framing afresh.
 *
 * <p>The offline pass ({@link OpenVpnCaptureAnalysis}) and the agent (which publishes the framed
 * headers for the job) run this same class, so both find the same packets. Bounded: each direction
 * keeps the first {@link #KEPT_BYTES} of the packet it is framing (the header, all the analysis
 * reads), and at most {@link #MAX_DIRECTIONS} directions are framed at once; the least recently
 * fed one is forgotten beyond that (its next segment starts framing anew, as at the start of a
 * capture).
 */
public final class OpenVpnTcpStreams {
    /** Bytes kept of each framed packet: more than the longest OpenVPN header (126 bytes). */
    public static final int KEPT_BYTES = 128;
    /** TCP directions framed at once (about 200 bytes each). */
    public static final int MAX_DIRECTIONS = 65_536;

    /**
     * One framed OpenVPN packet of {@code length} bytes, its first {@code kept} in
     * {@code b[off, off + kept)}, completed by segment {@code p}.
     */
    @FunctionalInterface
    public interface FramedSink {
        void onFramed(DecodedPacket p, byte[] b, int off, int kept, int length);
    }

    private final Map<String, OpenVpnTcpFramer> framers = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, OpenVpnTcpFramer> eldest) {
            return size() > MAX_DIRECTIONS;
        }
    };
    private final FramedSink sink;
    private DecodedPacket current;
    private long desynchronised;

    public OpenVpnTcpStreams(FramedSink sink) {
        this.sink = sink;
    }

    /**
     * Feeds one TCP segment of an OpenVPN port with its frame bytes {@code data}; returns true if
     * it repeated bytes already framed (a TCP retransmission). The sink sees the packets the
     * segment completed before this returns.
     */
    public boolean onSegment(DecodedPacket p, byte[] data) {
        if (p.status != DecodeStatus.TCP) {
            return false;
        }
        String key = OpenVpnCaptureAnalysis.flowKey(p) + (p.sourceIsLow() ? ">" : "<");
        if ((p.flags & DecodedPacket.SYN) != 0) {
            framers.remove(key);
            return false;
        }
        if (p.payloadLength == 0) {
            return false;
        }
        OpenVpnTcpFramer f = framers.computeIfAbsent(key, k -> new OpenVpnTcpFramer(KEPT_BYTES, this::framed));
        boolean wasDesynchronised = f.desynchronised();
        long repeatedBefore = f.repeatedBytes();
        current = p;
        f.onSegment(
                p.seq,
                data,
                p.payloadOffset,
                Math.min(p.payloadCaptured, p.payloadLength),
                p.payloadLength,
                p.timestampNanos);
        if (!wasDesynchronised && f.desynchronised()) {
            desynchronised++;
        }
        return f.repeatedBytes() > repeatedBefore;
    }

    private void framed(byte[] b, int off, int kept, int length, long timeNanos) {
        sink.onFramed(current, b, off, kept, length);
    }

    /** Directions whose framing a gap (a segment the capture missed, or a cut payload) ended. */
    public long desynchronised() {
        return desynchronised;
    }
}
