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
import io.flowtrace.core.testing.AnyBridgeCapture;
import io.flowtrace.core.testing.AnyBridgeCapture.Seen;
import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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

        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        AgentMetrics metrics = new AgentMetrics();
        SpoolingPublisher publisher = new SpoolingPublisher(
                new KafkaProducer<>(ProducerSettings.build("127.0.0.1:" + closedPort, null, null, "any-it")),
                "t",
                DiskSpool.open(dir, 256L << 20, PacketRecordWeight.INSTANCE),
                metrics,
                0,
                Duration.ofSeconds(1));
        // small batches, so each flow leaves in several: every one of them must name its own interface
        BatchOptions batching = new BatchOptions(
                new BatchLimits(8, 64 * 1024, TimeUnit.SECONDS.toNanos(10), 1024),
                BatchOptions.LingerClock.CAPTURE_TIME);
        CapturePublisher packets =
                new CapturePublisher("node", InterfaceNames.of("any"), publisher, metrics, batching, null);
        try (InputStream in = Files.newInputStream(AnyBridgeCapture.file())) {
            packets.publishAll(CaptureReader.open(in, packets), ReplayPacer.UNPACED, () -> false);
        }
        packets.close();
        publisher.close();

        Map<String, long[]> counted = new TreeMap<>();
        Map<String, Set<String>> interfacesPerKey = new TreeMap<>();
        try (DiskSpool spool = DiskSpool.open(dir, 256L << 20, PacketRecordWeight.INSTANCE)) {
            for (SpoolRecord r :
                    spool.peek(Integer.MAX_VALUE, Integer.MAX_VALUE).records()) {
                PacketBatch batch = PacketBatch.getDecoder().decode(r.value());
                String key = new String(r.key(), StandardCharsets.UTF_8);
                assertThat(PacketBatches.flowKey(batch)).isEqualTo(key);
                String iface = batch.getVantage().getInterfaceName();
                interfacesPerKey.computeIfAbsent(key, k -> new TreeSet<>()).add(iface);
                for (PacketEvent e : PacketBatches.toEvents(batch)) {
                    long[] n = counted.computeIfAbsent(
                            iface + " " + e.getSrcPort() + ">" + e.getDstPort(), k -> new long[2]);
                    n[0]++;
                    n[1] += e.getPayloadLength();
                }
            }
        }
        Map<String, String> got = new TreeMap<>();
        counted.forEach((k, n) -> got.put(k, n[0] + " packets, " + n[1] + " bytes"));
        assertThat(got).isEqualTo(expected);
        // two connections at two interfaces each: four Kafka keys, one interface each
        assertThat(interfacesPerKey)
                .hasSize(4)
                .allSatisfy((k, at) -> assertThat(at).hasSize(1));
        assertThat(metrics.dropped.sum()).isZero();
    }
}
