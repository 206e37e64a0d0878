package io.flowtrace.agent.packets;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.agent.batch.BatchKey;
import io.flowtrace.agent.batch.BatchLimits;
import io.flowtrace.agent.metrics.AgentMetrics;
import io.flowtrace.avro.OpenVpnBatch;
import io.flowtrace.avro.Vantage;
import io.flowtrace.avro.mapping.OpenVpnBatches;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.openvpn.OpenVpnHeader;
import io.flowtrace.core.openvpn.OpenVpnHeaderDecoder;
import io.flowtrace.core.openvpn.OpenVpnOpcode;
import io.flowtrace.core.openvpn.OpenVpnTcpStreams;
import io.flowtrace.core.openvpn.OpenVpnWire;
import io.flowtrace.core.pcap.CaptureReader;
import io.flowtrace.core.pcap.CaptureRecord;
import io.flowtrace.core.pcap.DecodeStatus;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.core.pcap.PacketDecoder;
import io.flowtrace.core.testing.TestData;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The agent's OpenVPN batches of a real capture: every Kafka value decodes as an OpenVpnBatch of one
 * flow under that flow's key, the spool counts its packets, and its packets expand to the headers
 * core decodes straight from the frames. A header the snap length cut is counted and still sent,
 * so the job reaches the same verdict.
 */
class OpenVpnBatchingTest {
    private static final Vantage VANTAGE = new Vantage("vpn-host", "if0");

    record Sent(String key, byte[] value, int packets) {}

    @Test
    void batchesEveryOpenVpnPacketOfACaptureAsItsHeaderBytes() throws Exception {
        OpenVpnWire wire = OpenVpnWire.defaults();
        AgentMetrics metrics = new AgentMetrics();
        List<Sent> sent = new ArrayList<>();
        OpenVpnBatching batching = new OpenVpnBatching(
                wire,
                new BatchLimits(64, 32 * 1024, TimeUnit.MILLISECONDS.toNanos(20), 1024),
                i -> VANTAGE,
                (key, w, packets, reason) -> sent.add(new Sent(key.toString(), w.finish(), packets)),
                metrics);
        FlowKeyCache keys = new FlowKeyCache();
        PacketDecoder decoder = PacketDecoder.withUdp();
        OpenVpnHeaderDecoder direct = new OpenVpnHeaderDecoder(wire);
        DecodedPacket p = new DecodedPacket();
        OpenVpnHeader h = new OpenVpnHeader();
        List<String> expected = new ArrayList<>();
        long truncatedSent = 0;
        try (InputStream in =
                        new GZIPInputStream(Files.newInputStream(TestData.file("openvpn/push-100k.client.pcap.gz")));
                CaptureReader reader = CaptureReader.open(in, e -> {})) {
            CaptureRecord rec = new CaptureRecord();
            while (reader.next(rec)) {
                if (rec.recordNumber % 500 == 7) {
                    // eth 14 + IPv4 20 + UDP 8 + 5 bytes: the session id is cut
                    rec.capturedLength = 47;
                    truncatedSent++;
                }
                assertThat(decoder.decode(rec, p)).isEqualTo(DecodeStatus.UDP);
                assertThat(batching.accepts(p)).isTrue();
                direct.decode(rec.data, p.payloadOffset, p.payloadCaptured, p.payloadLength, h);
                expected.add(p.timestampNanos + " " + p.srcPort + ">" + p.dstPort + " " + header(h));
                BatchKey key = keys.flow(rec.interfaceId, new VantagePoint("vpn-host", "if0"), p);
                batching.add(key, rec, p, rec.timestampNanos);
            }
        }
        batching.flushAll(io.flowtrace.agent.batch.FlushReason.SHUTDOWN);

        assertThat(metrics.malformed()).containsEntry("openvpn-truncated", truncatedSent);
        List<String> expanded = new ArrayList<>();
        byte[] header = new byte[OpenVpnBatches.MAX_HEADER_BYTES];
        long truncatedSeen = 0;
        for (Sent s : sent) {
            OpenVpnBatch b = OpenVpnBatch.getDecoder().decode(s.value());
            assertThat(s.key()).isEqualTo(OpenVpnBatches.flowKey(b));
            assertThat(s.packets()).isEqualTo(b.getPackets().size()).isLessThanOrEqualTo(64);
            assertThat(PacketRecordWeight.INSTANCE.items(s.value(), 0, s.value().length))
                    .isEqualTo(s.packets());
            assertThat(OpenVpnBatches.wire(b)).isEqualTo(wire);
            OpenVpnHeaderDecoder job = new OpenVpnHeaderDecoder(OpenVpnBatches.wire(b));
            for (int i = 0; i < b.getPackets().size(); i++) {
                int n = OpenVpnBatches.fromAvro(b, i, p, header);
                job.decode(header, 0, n, p.payloadLength, h);
                truncatedSeen += h.kind == OpenVpnHeader.Kind.TRUNCATED ? 1 : 0;
                expanded.add(p.timestampNanos + " " + p.srcPort + ">" + p.dstPort + " " + header(h));
            }
        }
        assertThat(expanded).isEqualTo(expected);
        assertThat(truncatedSeen).isEqualTo(truncatedSent).isPositive();
    }

    /**
     * proto tcp (testdata/openvpn/tcp.push-1k, 12 setups, captured whole): the agent frames each TCP
     * direction as analyze does and publishes each framed packet's header, plus one entry per TCP
     * retransmission, in batches of transport tcp.
     */
    @ParameterizedTest
    @ValueSource(strings = {"tcp.push-1k.client", "tcp.push-1k.server"})
    void framesOpenVpnOverTcpAndPublishesTheHeadersAndTheTcpRetransmissions(String capture) throws Exception {
        OpenVpnWire wire = OpenVpnWire.defaults();
        AgentMetrics metrics = new AgentMetrics();
        List<Sent> sent = new ArrayList<>();
        OpenVpnBatching batching = new OpenVpnBatching(
                wire,
                new BatchLimits(16, 32 * 1024, TimeUnit.MILLISECONDS.toNanos(20), 1024),
                i -> VANTAGE,
                (key, w, packets, reason) -> sent.add(new Sent(key.toString(), w.finish(), packets)),
                metrics);
        FlowKeyCache keys = new FlowKeyCache();
        PacketDecoder decoder = PacketDecoder.withUdp();
        // what analyze reads: core's framing of the same segments, decoded from the whole packet
        OpenVpnHeaderDecoder direct = new OpenVpnHeaderDecoder(wire);
        OpenVpnHeader h = new OpenVpnHeader();
        List<String> expected = new ArrayList<>();
        OpenVpnTcpStreams analyze = new OpenVpnTcpStreams((seg, b, off, kept, len) -> {
            direct.decode(b, off, kept, len, h);
            expected.add(seg.timestampNanos + " " + seg.srcPort + ">" + seg.dstPort + " " + header(h));
        });
        DecodedPacket p = new DecodedPacket();
        try (InputStream in =
                        new GZIPInputStream(Files.newInputStream(TestData.file("openvpn/" + capture + ".pcap.gz")));
                CaptureReader reader = CaptureReader.open(in, e -> {})) {
            CaptureRecord rec = new CaptureRecord();
            while (reader.next(rec)) {
                assertThat(decoder.decode(rec, p)).isEqualTo(DecodeStatus.TCP);
                assertThat(batching.accepts(p)).isTrue();
                analyze.onSegment(p, rec.data);
                BatchKey key = keys.flow(rec.interfaceId, new VantagePoint("vpn-host", "if0"), p);
                batching.addTcp(key, rec, p, rec.timestampNanos);
            }
        }
        batching.flushAll(io.flowtrace.agent.batch.FlushReason.SHUTDOWN);

        List<String> expanded = new ArrayList<>();
        Map<Integer, Long> retransmitsBySender = new HashMap<>();
        long clientResets = 0;
        byte[] header = new byte[OpenVpnBatches.MAX_HEADER_BYTES];
        for (Sent s : sent) {
            OpenVpnBatch b = OpenVpnBatch.getDecoder().decode(s.value());
            assertThat(b.getTransport()).isEqualTo(OpenVpnBatches.TCP);
            assertThat(PacketRecordWeight.INSTANCE.items(s.value(), 0, s.value().length))
                    .isEqualTo(s.packets())
                    .isEqualTo(b.getPackets().size());
            OpenVpnHeaderDecoder job = new OpenVpnHeaderDecoder(OpenVpnBatches.wire(b));
            for (int i = 0; i < b.getPackets().size(); i++) {
                assertThat(OpenVpnBatches.invalidPacketReason(b, i, 1_800_000_000_000_000_000L))
                        .isNull();
                int n = OpenVpnBatches.fromAvro(b, i, p, header);
                assertThat(p.status).isEqualTo(DecodeStatus.TCP);
                if (b.getPackets().get(i).getTcpRetransmit()) {
                    assertThat(n).isZero();
                    retransmitsBySender.merge(p.srcPort == 1194 ? 1194 : 0, 1L, Long::sum);
                    continue;
                }
                job.decode(header, 0, n, p.payloadLength, h);
                clientResets += h.opcode == OpenVpnOpcode.HARD_RESET_CLIENT_V2 ? 1 : 0;
                expanded.add(p.timestampNanos + " " + p.srcPort + ">" + p.dstPort + " " + header(h));
            }
        }
        assertThat(expanded).isEqualTo(expected);
        // 12 setups (testdata/openvpn/README.md); over TCP OpenVPN sends its reset once
        assertThat(clientResets).isEqualTo(12);
        // tshark's tcp.analysis.retransmission per sender (client 10.77.1.2, server 10.77.2.2 on 1194)
        Map<Integer, Long> tshark = new HashMap<>();
        try (var lines = new java.io.BufferedReader(new java.io.InputStreamReader(
                new GZIPInputStream(Files.newInputStream(TestData.file("openvpn/" + capture + ".tshark.tsv.gz")))))) {
            for (String l = lines.readLine(); l != null; l = lines.readLine()) {
                String[] f = l.split("\t", -1);
                if (f.length > 12 && !f[12].isEmpty()) {
                    tshark.merge(f[2].equals("10.77.2.2") ? 1194 : 0, 1L, Long::sum);
                }
            }
        }
        assertThat(retransmitsBySender).isEqualTo(tshark);
        assertThat(metrics.malformed()).doesNotContainKey("openvpn-tcp-gap");
        if (capture.endsWith("client")) {
            assertThat(tshark).as("1 % loss over 12 setups").isNotEmpty();
        }
        assertThat(metrics.malformed()).isEmpty();
    }

    @Test
    void aSnapLengthThatCutsTheTcpPayloadIsCountedAsAGapNotFramed() throws Exception {
        AgentMetrics metrics = new AgentMetrics();
        List<Sent> sent = new ArrayList<>();
        OpenVpnBatching batching = new OpenVpnBatching(
                OpenVpnWire.defaults(),
                new BatchLimits(16, 32 * 1024, TimeUnit.MILLISECONDS.toNanos(20), 1024),
                i -> VANTAGE,
                (key, w, packets, reason) -> sent.add(new Sent(key.toString(), w.finish(), packets)),
                metrics);
        FlowKeyCache keys = new FlowKeyCache();
        PacketDecoder decoder = PacketDecoder.withUdp();
        DecodedPacket p = new DecodedPacket();
        long directions;
        try (InputStream in =
                        new GZIPInputStream(Files.newInputStream(TestData.file("openvpn/tcp.push-1k.client.pcap.gz")));
                CaptureReader reader = CaptureReader.open(in, e -> {})) {
            CaptureRecord rec = new CaptureRecord();
            java.util.Set<String> cut = new java.util.HashSet<>();
            while (reader.next(rec)) {
                // the agent's default live snap length: 128 bytes of every frame
                rec.capturedLength = Math.min(rec.capturedLength, 128);
                assertThat(decoder.decode(rec, p)).isEqualTo(DecodeStatus.TCP);
                if (p.payloadCaptured < p.payloadLength) {
                    cut.add(rec.interfaceId + " " + p.srcPort + ">" + p.dstPort);
                }
                batching.addTcp(
                        keys.flow(rec.interfaceId, new VantagePoint("vpn-host", "if0"), p), rec, p, rec.timestampNanos);
            }
            directions = cut.size();
        }
        batching.flushAll(io.flowtrace.agent.batch.FlushReason.SHUTDOWN);
        // each direction whose payload the snap length cut stops framing there, once, and says so
        assertThat(directions).isPositive();
        assertThat(metrics.malformed()).containsEntry("openvpn-tcp-gap", directions);
    }

    private static String header(OpenVpnHeader h) {
        return h.kind + " op" + h.opcode + " k" + h.keyId + " sid" + h.sessionId + " acks"
                + Arrays.toString(Arrays.copyOf(h.ackIds, h.ackCount)) + " rsid" + h.remoteSessionId + " mpid"
                + h.messagePacketId + " payload" + h.payloadLength + " " + h.reason;
    }
}
