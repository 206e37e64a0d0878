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
     * not fit; the rest at the end). {@code cut} may change each frame first (e.g. shorten it).
     */
    public static List<OpenVpnBatch> batches(String capture, Vantage vantage, int size, Consumer<CaptureRecord> cut)
            throws IOException {
        OpenVpnWire wire = OpenVpnWire.defaults();
        OpenVpnHeaderDecoder decoder = new OpenVpnHeaderDecoder(wire);
        OpenVpnFlowLayouts layouts = new OpenVpnFlowLayouts(wire);
        Map<String, OpenVpnBatches.Builder> open = new LinkedHashMap<>();
        List<OpenVpnBatch> out = new ArrayList<>();
        try (InputStream in = new GZIPInputStream(Files.newInputStream(TestData.file(capture)));
                CaptureReader reader = CaptureReader.open(in, e -> {})) {
            CaptureRecord rec = new CaptureRecord();
            DecodedPacket p = new DecodedPacket();
            OpenVpnHeader h = new OpenVpnHeader();
            PacketDecoder udp = PacketDecoder.withUdp();
            while (reader.next(rec)) {
                cut.accept(rec);
                if (udp.decode(rec, p) != DecodeStatus.UDP) {
                    continue;
                }
                OpenVpnWire layout = layouts.layout(
                        OpenVpnCaptureAnalysis.flowKey(p),
                        rec.data,
                        p.payloadOffset,
                        p.payloadCaptured,
                        p.payloadLength,
                        p.timestampNanos);
                decoder.decode(layout, rec.data, p.payloadOffset, p.payloadCaptured, p.payloadLength, h);
                String key = io.flowtrace.avro.mapping.PacketEvents.flowKey(
                        new io.flowtrace.core.net.VantagePoint("x", "x"), p);
                OpenVpnBatches.Builder b = open.computeIfAbsent(key, k -> new OpenVpnBatches.Builder(vantage, wire));
                if (b.size() > 0 && !b.layout().equals(layout)) {
                    out.add(b.build()); // as the agent: one layout per batch
                }
                b.layout(layout);
                b.add(p, h, rec.data);
                if (b.size() == size) {
                    out.add(b.build());
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
