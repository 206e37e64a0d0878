package io.flowtrace.agent.packets;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.agent.batch.BatchLimits;
import io.flowtrace.agent.batch.BatchOptions;
import io.flowtrace.agent.kafka.ProducerSettings;
import io.flowtrace.agent.kafka.SpoolingPublisher;
import io.flowtrace.agent.metrics.AgentMetrics;
import io.flowtrace.agent.spool.DiskSpool;
import io.flowtrace.agent.spool.SpoolRecord;
import io.flowtrace.avro.PacketBatch;
import io.flowtrace.avro.PacketEvent;
import io.flowtrace.avro.mapping.PacketBatches;
import io.flowtrace.core.pcap.CaptureReader;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.core.pcap.LinkType;
import io.flowtrace.core.testing.AnyBridgeCapture;
import io.flowtrace.core.testing.AnyBridgeCapture.Seen;
import io.flowtrace.core.testing.Frames;
import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the packets agent captures on {@code --iface any} of a node with bridged pods
 * (testdata/tcp/any-bridge.pcap.gz, tcpdump with the agent's own {@code -y LINUX_SLL2}), through its
 * batching into a real spool (no broker: a closed port): each interface the packets crossed is a vantage
 * of its own ({@code any:if<index>} for a recording), and each of its flows carries exactly the packets
 * and payload bytes tshark counts at that interface, never both copies under one key.
 */
class AnyInterfaceBatchingITCase {
    @TempDir
    Path dir;

    @Test
    void eachInterfaceOfAnyIsAVantageWithOneInterfacesPackets() throws Exception {
        Map<String, String> expected = new TreeMap<>();
        for (Seen s : AnyBridgeCapture.truth()) {
            expected.put(
                    "any:if" + s.ifindex() + " " + s.srcPort() + ">" + s.dstPort(),
                    s.packets() + " packets, " + s.payloadBytes() + " bytes");
        }

        Map<String, long[]> counted = new TreeMap<>();
        Map<String, Set<String>> interfacesPerKey = new TreeMap<>();
        for (SpoolRecord r : spooled(AnyBridgeCapture.file())) {
            PacketBatch batch = PacketBatch.getDecoder().decode(r.value());
            String key = new String(r.key(), StandardCharsets.UTF_8);
            assertThat(PacketBatches.flowKey(batch)).isEqualTo(key);
            String iface = batch.getVantage().getInterfaceName();
            interfacesPerKey.computeIfAbsent(key, k -> new TreeSet<>()).add(iface);
            for (PacketEvent e : PacketBatches.toEvents(batch)) {
                long[] n =
                        counted.computeIfAbsent(iface + " " + e.getSrcPort() + ">" + e.getDstPort(), k -> new long[2]);
                n[0]++;
                n[1] += e.getPayloadLength();
            }
        }
        Map<String, String> got = new TreeMap<>();
        counted.forEach((k, n) -> got.put(k, n[0] + " packets, " + n[1] + " bytes"));
        assertThat(got).isEqualTo(expected);
        // two connections at two interfaces each: four Kafka keys, one interface each
        assertThat(interfacesPerKey)
                .hasSize(4)
                .allSatisfy((k, at) -> assertThat(at).hasSize(1));
    }

    /**
     * A node that made many interfaces (a veth per pod ever started) has large indexes: one beyond the
     * publisher's arrays (65,536) is a vantage of its own as well. Hand-built SLL2 frames: the same SYN at
     * index 3 and at index 70,000.
     */
    @Test
    void aLargeInterfaceIndexIsAVantageOfItsOwn() throws Exception {
        byte[] syn = Frames.ipv4(
                new byte[] {10, 0, 0, 1},
                new byte[] {10, 0, 0, 2},
                1,
                Frames.tcp(40000, 80, 1000, 0, DecodedPacket.SYN, 64240, new byte[0], 0));
        Path capture = dir.resolve("large-index.pcap");
        Files.write(capture, Frames.pcap(false, false, LinkType.LINUX_SLL2, sll2(3, syn), sll2(70_000, syn)));
        Map<String, Integer> packetsPerInterface = new TreeMap<>();
        for (SpoolRecord r : spooled(capture)) {
            PacketBatch batch = PacketBatch.getDecoder().decode(r.value());
            packetsPerInterface.merge(
                    batch.getVantage().getInterfaceName(), batch.getPackets().size(), Integer::sum);
        }
        assertThat(packetsPerInterface).containsExactly(Map.entry("any:if3", 1), Map.entry("any:if70000", 1));
    }

    /** The records {@code capture} leaves in a spool through the agent's batching, named as {@code --interface-name any}. */
    private List<SpoolRecord> spooled(Path capture) throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        Path spoolDir = Files.createTempDirectory(dir, "spool");
        AgentMetrics metrics = new AgentMetrics();
        SpoolingPublisher publisher = new SpoolingPublisher(
                new KafkaProducer<>(ProducerSettings.build("127.0.0.1:" + closedPort, null, null, "any-it")),
                "t",
                DiskSpool.open(spoolDir, 256L << 20, PacketRecordWeight.INSTANCE),
                metrics,
                0,
                Duration.ofSeconds(1));
        // small batches, so a flow leaves in several: every one of them must name its own interface
        BatchOptions batching = new BatchOptions(
                new BatchLimits(8, 64 * 1024, TimeUnit.SECONDS.toNanos(10), 1024),
                BatchOptions.LingerClock.CAPTURE_TIME);
        CapturePublisher packets =
                new CapturePublisher("node", InterfaceNames.of("any"), publisher, metrics, batching, null);
        try (InputStream in = Files.newInputStream(capture)) {
            packets.publishAll(CaptureReader.open(in, packets), ReplayPacer.UNPACED, () -> false);
        }
        packets.close();
        publisher.close();
        assertThat(metrics.dropped.sum()).isZero();
        try (DiskSpool spool = DiskSpool.open(spoolDir, 256L << 20, PacketRecordWeight.INSTANCE)) {
            return spool.peek(Integer.MAX_VALUE, Integer.MAX_VALUE).records();
        }
    }

    /** A LINUX_SLL2 header (protocol IPv4, the interface index, ARPHRD_ETHER, to us, a 6-byte address), then IPv4. */
    private static byte[] sll2(int ifindex, byte[] ipv4) {
        byte[] header = ByteBuffer.allocate(20)
                .putShort((short) 0x0800)
                .putShort((short) 0)
                .putInt(ifindex)
                .putShort((short) 1)
                .put((byte) 0)
                .put((byte) 6)
                .put(new byte[] {2, 0, 0, 0, 0, 1, 0, 0})
                .array();
        return Frames.concat(header, ipv4);
    }
}
