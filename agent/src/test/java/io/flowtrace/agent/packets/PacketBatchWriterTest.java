package io.flowtrace.agent.packets;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.agent.batch.BatchKey;
import io.flowtrace.agent.batch.BatchLimits;
import io.flowtrace.agent.batch.FlowBatcher;
import io.flowtrace.agent.batch.FlushReason;
import io.flowtrace.agent.testing.CapturedPackets;
import io.flowtrace.avro.PacketBatch;
import io.flowtrace.avro.PacketEvent;
import io.flowtrace.avro.Vantage;
import io.flowtrace.avro.mapping.PacketBatches;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.pcap.CaptureReader;
import io.flowtrace.core.pcap.CaptureRecord;
import io.flowtrace.core.pcap.DecodeStatus;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.core.pcap.PacketDecoder;
import io.flowtrace.core.testing.TestData;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The agent's batch encoding against the contract's reference code, for every TCP packet of real
 * captures: each batch decodes with {@code PacketBatch.getDecoder()}, re-encodes to the same bytes,
 * carries its flow's key, stays under the byte limit, and its packets expand
 * ({@link PacketBatches#toEvents}) to exactly the PacketEvents the capture gives when decoded
 * straight from the file (core's reader and decoder, {@link CapturedPackets}).
 */
class PacketBatchWriterTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (String capture : List.of(
                "tcp/reorder.sender.pcap.gz",
                "tcp/ipv6-loss.receiver.pcap.gz",
                "decoding/tcp4-2if.pcapng",
                "decoding/tcp4-sack.pcap",
                "tcp/short-conns.sender.pcap.gz",
                "decoding/tcp4-truncated.pcap",
                "decoding/vlan-qinq.pcap")) {
            out.add(Arguments.of(capture, new BatchLimits(1, 64 * 1024, 20 * MS, 1024)));
            out.add(Arguments.of(capture, new BatchLimits(7, 64 * 1024, 1 * MS, 3)));
            out.add(Arguments.of(capture, BatchLimits.DEFAULTS));
            out.add(Arguments.of(capture, new BatchLimits(100_000, 1024, 1000 * MS, 1024)));
        }
        return out.stream();
    }

    @ParameterizedTest
    @MethodSource("cases")
    void batchesExpandToTheCapturesPacketsPerFlowAndEncodeAsTheReference(String capture, BatchLimits limits)
            throws Exception {
        Path file = TestData.file(capture);
        Map<String, List<PacketEvent>> expected = CapturedPackets.byFlow(file, "a");
        Map<String, List<PacketEvent>> got = new LinkedHashMap<>();
        List<Vantage> vantages = new ArrayList<>();
        FlowBatcher<PacketBatchWriter> batcher = new FlowBatcher<>(
                limits, () -> new PacketBatchWriter(vantages::get), (key, writer, packets, reason) -> {
                    assertThat(writer.packets()).isEqualTo(packets);
                    byte[] value = writer.finish();
                    assertThat(value.length).as("batch bytes").isLessThanOrEqualTo(limits.maxBytes());
                    PacketBatch batch = PacketBatch.getDecoder().decode(value);
                    assertThat(bytes(PacketBatch.getEncoder().encode(batch))).isEqualTo(value);
                    assertThat(batch.getPackets()).hasSize(packets).hasSizeLessThanOrEqualTo(limits.maxPackets());
                    assertThat(PacketBatches.flowKey(batch)).isEqualTo(key.toString());
                    assertThat(PacketRecordWeight.INSTANCE.items(value, 0, value.length))
                            .isEqualTo(packets);
                    got.computeIfAbsent(key.toString(), k -> new ArrayList<>()).addAll(PacketBatches.toEvents(batch));
                });
        FlowKeyCache keys = new FlowKeyCache();
        try (InputStream in = Files.newInputStream(file)) {
            CaptureReader reader = CaptureReader.open(in);
            CaptureRecord rec = new CaptureRecord();
            DecodedPacket p = new DecodedPacket();
            PacketDecoder decoder = new PacketDecoder();
            while (reader.next(rec)) {
                if (decoder.decode(rec, p) != DecodeStatus.TCP) {
                    continue;
                }
                while (vantages.size() <= rec.interfaceId) {
                    vantages.add(Vantage.newBuilder()
                            .setAgentId("a")
                            .setInterfaceName("if" + vantages.size())
                            .build());
                }
                VantagePoint vantage = PacketEvents.vantagePoint(vantages.get(rec.interfaceId));
                batcher.add(keys.flow(rec.interfaceId, vantage, p), p, rec.timestampNanos);
            }
        }
        batcher.flushAll(FlushReason.SHUTDOWN);
        assertThat(CapturedPackets.count(got))
                .isEqualTo(CapturedPackets.count(expected))
                .isPositive();
        assertThat(got.keySet()).containsExactlyInAnyOrderElementsOf(expected.keySet());
        for (Map.Entry<String, List<PacketEvent>> flow : expected.entrySet()) {
            assertThat(got.get(flow.getKey())).as("flow %s", flow.getKey()).containsExactlyElementsOf(flow.getValue());
        }
    }

    @Test
    void synRetransmissionsThatNeverSeeAnAnswerExpandExactly() throws Exception {
        // Ten SYNs (no ACK flag, so the server's sequence base is never learnt) then a RST from the
        // server: more than the writer keeps waiting for a base, so it falls back to base 0.
        List<DecodedPacket> sent = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            sent.add(packet(
                    true, 4_000_000_000L, 0, DecodedPacket.SYN, 1_700_000_000_000_000_000L + i * 1_000_000_000L));
        }
        sent.add(packet(false, 0, 4_000_000_001L, DecodedPacket.RST | DecodedPacket.ACK, 1_700_000_010_000_000_000L));
        Vantage v = Vantage.newBuilder().setAgentId("a").setInterfaceName("if0").build();
        PacketBatchWriter writer = new PacketBatchWriter(id -> v);
        BatchKey key = new BatchKey(
                PacketEvents.flowKey(PacketEvents.vantagePoint(v), sent.get(0)).getBytes(StandardCharsets.UTF_8), 0);
        writer.open(key, sent.get(0));
        for (DecodedPacket p : sent) {
            writer.add(p);
        }
        PacketBatch batch = PacketBatch.getDecoder().decode(writer.finish());
        List<PacketEvent> expected = new ArrayList<>();
        for (DecodedPacket p : sent) {
            expected.add(PacketEvents.toAvro(p, v));
        }
        assertThat(PacketBatches.toEvents(batch)).containsExactlyElementsOf(expected);
        // The client (10.0.0.1:40000) is the lower endpoint; its SYN's seq is its base.
        assertThat(batch.getLowSeqBase()).isEqualTo(4_000_000_000L);
    }

    /** 10.0.0.1:40000 (client) and 10.0.0.2:80, IPv4 on Ethernet. */
    private static DecodedPacket packet(boolean fromClient, long seq, long ack, int flags, long timeNanos) {
        DecodedPacket p = new DecodedPacket();
        p.status = DecodeStatus.TCP;
        p.timestampNanos = timeNanos;
        p.linkType = 1;
        p.capturedLength = 74;
        p.wireLength = 74;
        p.ipVersion = 4;
        p.addrLength = 4;
        byte[] client = {10, 0, 0, 1};
        byte[] server = {10, 0, 0, 2};
        System.arraycopy(fromClient ? client : server, 0, p.srcAddr, 0, 4);
        System.arraycopy(fromClient ? server : client, 0, p.dstAddr, 0, 4);
        p.srcPort = fromClient ? 40000 : 80;
        p.dstPort = fromClient ? 80 : 40000;
        p.ipId = 7;
        p.ttl = 64;
        p.ipTotalLength = 60;
        p.seq = seq;
        p.ack = ack;
        p.flags = flags;
        p.window = 64240;
        p.mss = fromClient ? 1460 : -1;
        p.windowScale = -1;
        p.tsVal = -1;
        p.tsEcr = -1;
        return p;
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.get(a);
        return a;
    }
}
