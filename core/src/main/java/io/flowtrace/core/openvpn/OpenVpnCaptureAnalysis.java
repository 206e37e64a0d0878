package io.flowtrace.core.openvpn;

import io.flowtrace.core.pcap.CaptureFormatException;
import io.flowtrace.core.pcap.CaptureReader;
import io.flowtrace.core.pcap.CaptureRecord;
import io.flowtrace.core.pcap.CaptureRecordFilter;
import io.flowtrace.core.pcap.DecodeStatus;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.core.pcap.PacketDecoder;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * The offline OpenVPN pass over one capture: read → decode with UDP → OpenVPN header view of the
 * configured ports (UDP datagrams, or packets framed from TCP streams: {@link OpenVpnTcpStreams})
 * → sessions. One analysis per pass: it keeps each flow's wrapping ({@link OpenVpnFlowLayouts}). A pass of its own next to the TCP analysis, so the TCP pipeline
 * ({@code CaptureAnalysis}) is untouched; malformed and truncated OpenVPN headers are counted with
 * their reason and skipped, never fatal.
 */
public final class OpenVpnCaptureAnalysis {
    /** What the pass amounted to. */
    public static final class Summary {
        public long records;
        /** Capture format errors the reader recovered from. */
        public long formatErrors;

        public long udpPackets;
        public long openVpnPackets;
        public long truncated;
        public long malformed;
        public long opaque;
        public long dataWithoutSession;
        /** OpenVPN packets framed from TCP streams (proto tcp). */
        public long tcpFramed;
        /** TCP segments on OpenVPN ports that repeated bytes already framed. */
        public long tcpRetransmits;
        /** TCP directions whose framing a capture gap ended. */
        public long tcpDesynchronised;
        /** Control and ACK packets read as plain before their flow's wrapping was found. */
        public long undecided;
        /** The first reason of each kind, for the one line a user sees; null if none. */
        public String firstTruncatedReason;

        public String firstMalformedReason;
        /** Set when reading stopped on an unrecoverable capture format error. */
        public String fatalError;

        public final List<OpenVpnSession> sessions = new ArrayList<>();
    }

    private final OpenVpnWire wire;
    private final IntFunction<String> vantageOfInterface;
    private final OpenVpnHeaderDecoder ovpn;
    private final OpenVpnFlowLayouts layouts;
    private final OpenVpnHeader h = new OpenVpnHeader();

    public OpenVpnCaptureAnalysis(OpenVpnWire wire, IntFunction<String> vantageOfInterface) {
        this.wire = wire;
        this.vantageOfInterface = vantageOfInterface;
        this.ovpn = new OpenVpnHeaderDecoder(wire);
        this.layouts = new OpenVpnFlowLayouts(wire);
    }

    public Summary run(InputStream in) throws IOException {
        return run(in, CaptureRecordFilter.ALL);
    }

    /** As {@link #run(InputStream)}, over the records {@code filter} accepts only. */
    public Summary run(InputStream in, CaptureRecordFilter filter) throws IOException {
        Summary summary = new Summary();
        OpenVpnSessionTracker tracker = new OpenVpnSessionTracker(wire, vantageOfInterface, summary.sessions::add);
        PacketDecoder decoder = PacketDecoder.withUdp();
        long[] record = new long[1];
        OpenVpnTcpStreams streams = new OpenVpnTcpStreams((seg, b, off, kept, len) -> {
            summary.tcpFramed++;
            onPacket(summary, tracker, record[0], seg, b, off, kept, len);
        });
        DecodedPacket p = new DecodedPacket();
        CaptureRecord rec = new CaptureRecord();
        try (CaptureReader reader = CaptureReader.open(in, e -> summary.formatErrors++)) {
            while (reader.next(rec)) {
                summary.records++;
                record[0] = rec.recordNumber;
                DecodeStatus status = filter.accept(rec) ? decoder.decode(rec, p) : DecodeStatus.NOT_IP;
                if (status != DecodeStatus.UDP && status != DecodeStatus.TCP) {
                    continue;
                }
                if (p.status == DecodeStatus.TCP) {
                    if ((wire.isOpenVpnPort(p.srcPort) || wire.isOpenVpnPort(p.dstPort))
                            && streams.onSegment(p, rec.data)) {
                        summary.tcpRetransmits++;
                        tracker.onTcpRetransmit(p);
                    }
                    continue;
                }
                summary.udpPackets++;
                if (!wire.isOpenVpnPort(p.srcPort) && !wire.isOpenVpnPort(p.dstPort)) {
                    continue;
                }
                onPacket(
                        summary,
                        tracker,
                        rec.recordNumber,
                        p,
                        rec.data,
                        p.payloadOffset,
                        p.payloadCaptured,
                        p.payloadLength);
            }
        } catch (CaptureFormatException e) {
            summary.fatalError = e.getMessage();
        }
        tracker.flush();
        summary.tcpDesynchronised = streams.desynchronised();
        summary.dataWithoutSession = tracker.dataWithoutSession();
        summary.undecided = layouts.undecided();
        return summary;
    }

    /** One OpenVPN packet (a UDP payload or a framed one) {@code b[off, off + min(captured, length))}. */
    private void onPacket(
            Summary summary,
            OpenVpnSessionTracker tracker,
            long recordNumber,
            DecodedPacket p,
            byte[] b,
            int off,
            int captured,
            int length) {
        summary.openVpnPackets++;
        OpenVpnWire layout = layouts.layout(flowKey(p), b, off, captured, length, p.timestampNanos);
        switch (ovpn.decode(layout, b, off, captured, length, h)) {
            case TRUNCATED -> {
                summary.truncated++;
                if (summary.firstTruncatedReason == null) {
                    summary.firstTruncatedReason = "record " + recordNumber + ": " + h.reason;
                }
            }
            case MALFORMED -> {
                summary.malformed++;
                if (summary.firstMalformedReason == null) {
                    summary.firstMalformedReason = "record " + recordNumber + ": " + h.reason;
                }
            }
            default -> {
                if (h.kind == OpenVpnHeader.Kind.OPAQUE) {
                    summary.opaque++;
                }
                tracker.onPacket(p, h);
            }
        }
    }

    /** Interface and the two endpoints in canonical order: one flow at one vantage point. */
    public static String flowKey(DecodedPacket p) {
        StringBuilder k = new StringBuilder(48).append(p.interfaceId).append('|');
        boolean low = p.sourceIsLow();
        appendEndpoint(k, low ? p.srcAddr : p.dstAddr, p.addrLength, low ? p.srcPort : p.dstPort);
        appendEndpoint(k, low ? p.dstAddr : p.srcAddr, p.addrLength, low ? p.dstPort : p.srcPort);
        return k.toString();
    }

    private static void appendEndpoint(StringBuilder k, byte[] addr, int len, int port) {
        for (int i = 0; i < len; i++) {
            k.append(Integer.toHexString(addr[i] & 0xff)).append('.');
        }
        k.append(port).append('|');
    }
}
