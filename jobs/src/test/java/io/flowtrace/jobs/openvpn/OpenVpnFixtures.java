package io.flowtrace.jobs.openvpn;

import io.flowtrace.avro.OpenVpnBatch;
import io.flowtrace.avro.OpenVpnSessionRecord;
import io.flowtrace.avro.Vantage;
import io.flowtrace.avro.mapping.OpenVpnBatches;
import io.flowtrace.avro.mapping.OpenVpnSessions;
import io.flowtrace.core.openvpn.OpenVpnCaptureAnalysis;
import io.flowtrace.core.openvpn.OpenVpnFlowLayouts;
import io.flowtrace.core.openvpn.OpenVpnHeader;
import io.flowtrace.core.openvpn.OpenVpnHeaderDecoder;
import io.flowtrace.core.openvpn.OpenVpnSession;
import io.flowtrace.core.openvpn.OpenVpnTcpStreams;
import io.flowtrace.core.openvpn.OpenVpnWire;
import io.flowtrace.core.pcap.CaptureReader;
import io.flowtrace.core.pcap.CaptureRecord;
import io.flowtrace.core.pcap.DecodeStatus;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.core.pcap.PacketDecoder;
import io.flowtrace.core.testing.TestData;
import io.flowtrace.jobs.flow.FlowBatch;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.zip.GZIPInputStream;

/** testdata/openvpn captures as the agent batches them, and as the offline analysis reports them. */
public final class OpenVpnFixtures {
    private OpenVpnFixtures() {}

    /**
     * The capture's OpenVPN packets as per-flow OpenVpnBatches of at most {@code size} packets, in
     * the order an agent flushes them (a batch leaves when full, or when its flow's next packet would
     * not fit; the rest at the end). {@code cut} may change each frame first (e.g. shorten it). TCP
     * segments (proto tcp) are framed as the agent frames them (core's OpenVpnTcpStreams), each
     * framed packet and each TCP retransmission an entry of a transport-tcp batch.
     */
    public static List<OpenVpnBatch> batches(String capture, Vantage vantage, int size, Consumer<CaptureRecord> cut)
            throws IOException {
        OpenVpnWire wire = OpenVpnWire.defaults();
        OpenVpnHeaderDecoder decoder = new OpenVpnHeaderDecoder(wire);
        OpenVpnFlowLayouts layouts = new OpenVpnFlowLayouts(wire);
        Map<String, OpenVpnBatches.Builder> open = new LinkedHashMap<>();
        List<OpenVpnBatch> out = new ArrayList<>();
        List<byte[]> framed = new ArrayList<>();
        List<Integer> lengths = new ArrayList<>();
        OpenVpnTcpStreams streams = new OpenVpnTcpStreams((seg, b, off, kept, len) -> {
            framed.add(java.util.Arrays.copyOfRange(b, off, off + kept));
            lengths.add(len);
        });
        try (InputStream in = new GZIPInputStream(Files.newInputStream(TestData.file(capture)));
                CaptureReader reader = CaptureReader.open(in, e -> {})) {
            CaptureRecord rec = new CaptureRecord();
            DecodedPacket p = new DecodedPacket();
            DecodedPacket f = new DecodedPacket();
            OpenVpnHeader h = new OpenVpnHeader();
            PacketDecoder udp = PacketDecoder.withUdp();
            while (reader.next(rec)) {
                cut.accept(rec);
                DecodeStatus status = udp.decode(rec, p);
                String key = io.flowtrace.avro.mapping.PacketEvents.flowKey(
                        new io.flowtrace.core.net.VantagePoint("x", "x"), p);
                OpenVpnBatches.Builder b = open.computeIfAbsent(key, k -> new OpenVpnBatches.Builder(vantage, wire));
                if (status == DecodeStatus.UDP) {
                    OpenVpnWire layout = layouts.layout(
                            OpenVpnCaptureAnalysis.flowKey(p),
                            rec.data,
                            p.payloadOffset,
                            p.payloadCaptured,
                            p.payloadLength,
                            p.timestampNanos);
                    decoder.decode(layout, rec.data, p.payloadOffset, p.payloadCaptured, p.payloadLength, h);
                    start(b, layout, OpenVpnBatches.UDP, out);
                    b.add(p, h, rec.data);
                    full(b, size, out);
                    continue;
                }
                if (status != DecodeStatus.TCP) {
                    continue;
                }
                framed.clear();
                lengths.clear();
                boolean retransmit = streams.onSegment(p, rec.data);
                for (int i = 0; i < framed.size(); i++) {
                    byte[] kept = framed.get(i);
                    f.copyFrom(p);
                    f.payloadOffset = 0;
                    f.payloadCaptured = kept.length;
                    f.payloadLength = lengths.get(i);
                    OpenVpnWire layout = layouts.layout(
                            OpenVpnCaptureAnalysis.flowKey(f), kept, 0, kept.length, f.payloadLength, f.timestampNanos);
                    decoder.decode(layout, kept, 0, kept.length, f.payloadLength, h);
                    start(b, layout, OpenVpnBatches.TCP, out);
                    b.add(f, h, kept);
                    full(b, size, out);
                }
                if (retransmit) {
                    if (b.size() > 0 && !b.transport().equals(OpenVpnBatches.TCP)) {
                        out.add(b.build());
                    }
                    if (b.size() == 0) {
                        b.layout(wire.withLayout(0, false));
                        b.transport(OpenVpnBatches.TCP);
                    }
                    b.addTcpRetransmit(p);
                    full(b, size, out);
                }
            }
        } catch (io.flowtrace.core.pcap.CaptureFormatException e) {
            throw new IOException(e);
        }
        for (OpenVpnBatches.Builder b : open.values()) {
            if (b.size() > 0) {
                out.add(b.build());
            }
        }
        return out;
    }

    /** As the agent: one layout and one transport per batch. */
    private static void start(OpenVpnBatches.Builder b, OpenVpnWire layout, String transport, List<OpenVpnBatch> out) {
        if (b.size() > 0 && (!b.layout().equals(layout) || !b.transport().equals(transport))) {
            out.add(b.build());
        }
        b.layout(layout);
        b.transport(transport);
    }

    private static void full(OpenVpnBatches.Builder b, int size, List<OpenVpnBatch> out) {
        if (b.size() == size) {
            out.add(b.build());
        }
    }

    /** A batch as the packets source emits it. */
    public static FlowBatch record(OpenVpnBatch b, long offset) {
        String key = OpenVpnBatches.flowKey(b);
        ByteBuffer value;
        try {
            value = b.toByteBuffer();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        byte[] bytes = new byte[value.remaining()];
        value.get(bytes);
        return new FlowBatch(
                key,
                Math.floorDiv(b.getBaseTimeNs(), 1_000_000L),
                b.getPackets().size(),
                "t",
                0,
                offset,
                0,
                key.getBytes(StandardCharsets.UTF_8),
                bytes);
    }

    /** What {@code flowtrace analyze} reports for the capture's sessions, as records, in its order. */
    public static List<OpenVpnSessionRecord> offline(String capture, Vantage vantage) throws IOException {
        OpenVpnCaptureAnalysis.Summary summary;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(TestData.file(capture)))) {
            summary = new OpenVpnCaptureAnalysis(
                            OpenVpnWire.defaults(), iface -> vantage.getAgentId() + "/" + vantage.getInterfaceName())
                    .run(in);
        }
        List<OpenVpnSessionRecord> out = new ArrayList<>();
        for (OpenVpnSession s : summary.sessions) {
            out.add(OpenVpnSessions.toAvro(s, vantage));
        }
        return out;
    }
}
