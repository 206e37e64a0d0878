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
 * configured ports → sessions. A pass of its own next to the TCP analysis, so the TCP pipeline
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

    public OpenVpnCaptureAnalysis(OpenVpnWire wire, IntFunction<String> vantageOfInterface) {
        this.wire = wire;
        this.vantageOfInterface = vantageOfInterface;
    }

    public Summary run(InputStream in) throws IOException {
        return run(in, CaptureRecordFilter.ALL);
    }

    /** As {@link #run(InputStream)}, over the records {@code filter} accepts only. */
    public Summary run(InputStream in, CaptureRecordFilter filter) throws IOException {
        Summary summary = new Summary();
        OpenVpnSessionTracker tracker = new OpenVpnSessionTracker(wire, vantageOfInterface, summary.sessions::add);
        PacketDecoder decoder = PacketDecoder.withUdp();
        OpenVpnHeaderDecoder ovpn = new OpenVpnHeaderDecoder(wire);
        OpenVpnFlowLayouts layouts = new OpenVpnFlowLayouts(wire);
        DecodedPacket p = new DecodedPacket();
        OpenVpnHeader h = new OpenVpnHeader();
        CaptureRecord rec = new CaptureRecord();
        try (CaptureReader reader = CaptureReader.open(in, e -> summary.formatErrors++)) {
            while (reader.next(rec)) {
                summary.records++;
                if (!filter.accept(rec) || decoder.decode(rec, p) != DecodeStatus.UDP) {
                    continue;
                }
                summary.udpPackets++;
                if (!wire.isOpenVpnPort(p.srcPort) && !wire.isOpenVpnPort(p.dstPort)) {
                    continue;
                }
                summary.openVpnPackets++;
                OpenVpnWire layout = layouts.layout(
                        flowKey(p), rec.data, p.payloadOffset, p.payloadCaptured, p.payloadLength, p.timestampNanos);
                switch (ovpn.decode(layout, rec.data, p.payloadOffset, p.payloadCaptured, p.payloadLength, h)) {
                    case TRUNCATED -> {
                        summary.truncated++;
                        if (summary.firstTruncatedReason == null) {
                            summary.firstTruncatedReason = "record " + rec.recordNumber + ": " + h.reason;
                        }
                    }
                    case MALFORMED -> {
                        summary.malformed++;
                        if (summary.firstMalformedReason == null) {
                            summary.firstMalformedReason = "record " + rec.recordNumber + ": " + h.reason;
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
        } catch (CaptureFormatException e) {
            summary.fatalError = e.getMessage();
        }
        tracker.flush();
        summary.dataWithoutSession = tracker.dataWithoutSession();
        summary.undecided = layouts.undecided();
        return summary;
    }

    /** Interface and the two endpoints in canonical order: one flow at one vantage point. */
    static String flowKey(DecodedPacket p) {
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
