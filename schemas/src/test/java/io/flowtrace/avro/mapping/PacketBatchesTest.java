package io.flowtrace.avro.mapping;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowtrace.avro.BatchedPacket;
import io.flowtrace.avro.PacketBatch;
import io.flowtrace.avro.PacketEvent;
import io.flowtrace.avro.Vantage;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.pcap.CaptureReader;
import io.flowtrace.core.pcap.CaptureRecord;
import io.flowtrace.core.pcap.DecodeStatus;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.core.pcap.PacketDecoder;
import io.flowtrace.core.testing.TestData;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PacketBatchesTest {
    private static final Vantage VANTAGE = new Vantage("host-a", "eth0");

    @ParameterizedTest
    @ValueSource(
            strings = {
                "decoding/tcp4-sack.pcap",
                "decoding/tcp6-sack.pcap",
                "decoding/tcp4-snap64.pcap",
                "decoding/vlan-qinq.pcap",
                "decoding/tcp4-sll2.pcap",
                "join/client.pcap",
                "tcp/cubic-loss.sender.pcap.gz"
            })
    void batchesOfEverySizeStandForExactlyThePacketEventsOfTheirFlow(String capture) throws Exception {
        // The reference is the PacketEvent path (tested field by field against the decoder in
        // PacketEventsTest): a batch must expand to the very events the agent would have sent.
        Map<String, List<PacketEvent>> eventsByFlow = new LinkedHashMap<>();
        Map<String, List<DecodedPacket>> packetsByFlow = new LinkedHashMap<>();
        readFlows(capture, eventsByFlow, packetsByFlow);
        assertThat(eventsByFlow).isNotEmpty();

        for (int size : new int[] {1, 2, 7, 64, 100_000}) {
            for (Map.Entry<String, List<PacketEvent>> flow : eventsByFlow.entrySet()) {
                List<DecodedPacket> packets = packetsByFlow.get(flow.getKey());
                List<PacketEvent> expanded = new ArrayList<>();
                List<PacketEvent> viaEvents = new ArrayList<>();
                for (int from = 0; from < packets.size(); from += size) {
                    int to = Math.min(packets.size(), from + size);
                    PacketBatch batch = PacketBatch.getDecoder()
                            .decode(PacketBatches.toAvro(VANTAGE, packets.subList(from, to))
                                    .toByteBuffer());
                    assertThat(PacketBatches.flowKey(batch)).isEqualTo(flow.getKey());
                    expanded.addAll(PacketBatches.toEvents(batch));
                    viaEvents.addAll(PacketBatches.toEvents(
                            PacketBatches.fromEvents(flow.getValue().subList(from, to))));
                }
                assertThat(expanded)
                        .as("%s, batches of %d", flow.getKey(), size)
                        .isEqualTo(flow.getValue());
                assertThat(viaEvents)
                        .as("%s, batches of %d from events", flow.getKey(), size)
                        .isEqualTo(flow.getValue());
            }
        }
    }

    @Test
    void codesTimeDirectionAndSequenceNumbersRelativeToTheHeaderAcrossTheWrap() {
        // Hand-built flow 10.0.0.2:443 <-> 10.0.0.1:50000, the server's sequence space wrapping.
        DecodedPacket syn = packet(
                new byte[] {10, 0, 0, 1},
                50000,
                new byte[] {10, 0, 0, 2},
                443,
                1_700_000_000_000_000_000L,
                1000L,
                0L,
                DecodedPacket.SYN);
        DecodedPacket synAck = packet(
                new byte[] {10, 0, 0, 2},
                443,
                new byte[] {10, 0, 0, 1},
                50000,
                1_700_000_000_000_250_000L,
                0xffff_fff0L,
                1001L,
                DecodedPacket.SYN | DecodedPacket.ACK);
        DecodedPacket ack = packet(
                new byte[] {10, 0, 0, 1},
                50000,
                new byte[] {10, 0, 0, 2},
                443,
                1_700_000_000_000_100_000L,
                1001L,
                0x0000_0010L,
                DecodedPacket.ACK);
        ack.sackCount = 1;
        ack.sackLeft[0] = 0x0000_0100L;
        ack.sackRight[0] = 0xffff_ffffL;

        PacketBatch batch = PacketBatches.toAvro(VANTAGE, List.of(syn, synAck, ack));

        // 10.0.0.1:50000 is the lower endpoint (0a000001 < 0a000002)
        assertThat(batch.getLowPort()).isEqualTo(50000);
        assertThat(batch.getHighPort()).isEqualTo(443);
        assertThat(batch.getBaseTimeNs()).isEqualTo(1_700_000_000_000_000_000L);
        assertThat(batch.getLowSeqBase()).isEqualTo(1000L);
        assertThat(batch.getHighSeqBase()).isEqualTo(0xffff_fff0L);
        List<BatchedPacket> p = batch.getPackets();
        assertThat(p).extracting(BatchedPacket::getFromHigh).containsExactly(false, true, false);
        // 250 us after the base; the third packet 100 us after it (capture order is kept, not sorted)
        assertThat(p).extracting(BatchedPacket::getTimeOffsetNs).containsExactly(0L, 250_000L, 100_000L);
        assertThat(p.get(1).getSeqOffset()).isZero();
        assertThat(p.get(1).getAckOffset()).isEqualTo(1);
        // 0x10 - 0xfffffff0 = 0x20 mod 2^32; SACK edges in the server's space: 0x100 - 0xfffffff0 = 0x110, 0xffffffff -
        // 0xfffffff0 = 15
        assertThat(p.get(2).getAckOffset()).isEqualTo(0x20);
        assertThat(p.get(2).getSackBlocks().get(0).getLeftOffset()).isEqualTo(0x110);
        assertThat(p.get(2).getSackBlocks().get(0).getRightOffset()).isEqualTo(15);

        DecodedPacket back = new DecodedPacket();
        PacketBatches.fromAvro(batch, 2, back);
        assertThat(back.ack).isEqualTo(0x0000_0010L);
        assertThat(back.sackLeft[0]).isEqualTo(0x0000_0100L);
        assertThat(back.sackRight[0]).isEqualTo(0xffff_ffffL);
        assertThat(back.srcPort).isEqualTo(50000);
        assertThat(back.timestampNanos).isEqualTo(1_700_000_000_000_100_000L);
    }

    @Test
    void refusesAPacketOfAnotherFlow() {
        DecodedPacket a = packet(new byte[] {10, 0, 0, 1}, 50000, new byte[] {10, 0, 0, 2}, 443, 1L, 1L, 0L, 0);
        DecodedPacket other = packet(new byte[] {10, 0, 0, 1}, 50001, new byte[] {10, 0, 0, 2}, 443, 2L, 1L, 0L, 0);
        PacketBatches.Builder builder = new PacketBatches.Builder(VANTAGE);
        builder.add(a);

        assertThat(builder.accepts(other)).isFalse();
        assertThatThrownBy(() -> builder.add(other))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not of this batch's flow");
    }

    @Test
    void theSingleObjectHeaderTellsABatchFromAnEventOnOneTopic() throws Exception {
        DecodedPacket a = packet(
                new byte[] {10, 0, 0, 1}, 50000, new byte[] {10, 0, 0, 2}, 443, 1_700_000_000_000_000_000L, 1L, 0L, 0);
        byte[] batch = bytes(PacketBatches.toAvro(VANTAGE, List.of(a)).toByteBuffer());
        byte[] event = bytes(PacketEvents.toAvro(a, VANTAGE).toByteBuffer());

        assertThat(PacketBatches.fingerprintOf(batch)).isEqualTo(PacketBatches.FINGERPRINT);
        assertThat(PacketBatches.fingerprintOf(event)).isEqualTo(PacketBatches.EVENT_FINGERPRINT);
        assertThat(PacketBatches.FINGERPRINT).isNotEqualTo(PacketBatches.EVENT_FINGERPRINT);
        assertThat(PacketBatches.fingerprintOf(new byte[] {1, 2, 3})).isZero();
    }

    private static DecodedPacket packet(
            byte[] src, int srcPort, byte[] dst, int dstPort, long timeNs, long seq, long ack, int flags) {
        DecodedPacket p = new DecodedPacket();
        p.status = DecodeStatus.TCP;
        p.linkType = 1;
        p.ipVersion = 4;
        p.addrLength = 4;
        System.arraycopy(src, 0, p.srcAddr, 0, 4);
        System.arraycopy(dst, 0, p.dstAddr, 0, 4);
        p.srcPort = srcPort;
        p.dstPort = dstPort;
        p.timestampNanos = timeNs;
        p.seq = seq;
        p.ack = ack;
        p.flags = flags;
        p.ipId = 7;
        p.ttl = 64;
        p.mss = -1;
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

    private static void readFlows(
            String capture, Map<String, List<PacketEvent>> events, Map<String, List<DecodedPacket>> packets)
            throws Exception {
        VantagePoint vantage = PacketEvents.vantagePoint(VANTAGE);
        InputStream file = Files.newInputStream(TestData.file(capture));
        try (InputStream in = capture.endsWith(".gz") ? new GZIPInputStream(file) : file;
                CaptureReader r = CaptureReader.open(in)) {
            CaptureRecord rec = new CaptureRecord();
            PacketDecoder decoder = new PacketDecoder();
            DecodedPacket p = new DecodedPacket();
            while (r.next(rec)) {
                if (decoder.decode(rec, p) != DecodeStatus.TCP) {
                    continue;
                }
                String key = PacketEvents.flowKey(vantage, p);
                DecodedPacket copy = new DecodedPacket();
                copy.copyFrom(p);
                packets.computeIfAbsent(key, k -> new ArrayList<>()).add(copy);
                events.computeIfAbsent(key, k -> new ArrayList<>()).add(PacketEvents.toAvro(p, VANTAGE));
            }
        }
    }
}
