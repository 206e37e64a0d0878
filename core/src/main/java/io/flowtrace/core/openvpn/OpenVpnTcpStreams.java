package io.flowtrace.core.openvpn;

import io.flowtrace.core.pcap.DecodeStatus;
import io.flowtrace.core.pcap.DecodedPacket;
import java.util.HashMap;
import java.util.Map;

/**
 * OpenVPN over TCP in the offline pass: the segments of each TCP connection on an OpenVPN port,
 * one {@link OpenVpnTcpFramer} per direction, each framed packet read as a UDP datagram would be
 * and handed on with the segment that completed it. A segment whose bytes were all framed before
 * is a TCP retransmission: counted on the connection's current session
 * ({@link OpenVpnDirectionStats#tcpRetransmits()}), never as a control-channel one (over TCP
 * OpenVPN does not resend control packets itself; the framer drops the repeated bytes, so a
 * message packet-id is seen once). A SYN starts the connection's framing afresh.
 */
final class OpenVpnTcpStreams {
    /** One framed OpenVPN packet: {@code b[off, off + len)}, completed by segment {@code p}. */
    @FunctionalInterface
    interface FramedSink {
        void onFramed(DecodedPacket p, byte[] b, int off, int len);
    }

    private final Map<String, OpenVpnTcpFramer> framers = new HashMap<>();
    private final FramedSink sink;
    private DecodedPacket current;
    private long desynchronised;

    OpenVpnTcpStreams(FramedSink sink) {
        this.sink = sink;
    }

    /**
     * Feeds one TCP segment of an OpenVPN port with its frame bytes {@code data}; returns true if
     * it repeated bytes already framed (a TCP retransmission).
     */
    boolean onSegment(DecodedPacket p, byte[] data) {
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
        OpenVpnTcpFramer f = framers.computeIfAbsent(key, k -> new OpenVpnTcpFramer(this::framed));
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

    private void framed(byte[] b, int off, int len, long timeNanos) {
        sink.onFramed(current, b, off, len);
    }

    /** Directions whose framing a gap (a segment the capture missed, or a cut payload) ended. */
    long desynchronised() {
        return desynchronised;
    }
}
