package io.flowtrace.agent.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.agent.batch.BatchLimits;
import io.flowtrace.agent.batch.BatchOptions;
import io.flowtrace.agent.metrics.AgentMetrics;
import io.flowtrace.agent.packets.CapturePublisher;
import io.flowtrace.agent.packets.PacketRecordWeight;
import io.flowtrace.agent.packets.ReplayPacer;
import io.flowtrace.agent.spool.DiskSpool;
import io.flowtrace.agent.spool.SpoolBatch;
import io.flowtrace.agent.spool.SpoolRecord;
import io.flowtrace.agent.testing.CapturedPackets;
import io.flowtrace.avro.PacketBatch;
import io.flowtrace.avro.PacketEvent;
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
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No broker (a closed local port), batching on: the first batch that leaves goes to the spool, and
 * at that moment every other open batch follows it there (flush reason "spooling") instead of
 * waiting in memory; the spool, reopened, holds every TCP packet of the capture as PacketBatches,
 * in capture order per flow, and counts packets and records.
 */
class BatchSpoolingITCase {
    @TempDir
    Path dir;

    @Test
    void spoolsEveryPacketAsBatchesAndFlushesOpenBatchesWhenSpoolingStarts() throws Exception {
        Path capture = TestData.file("tcp/short-conns.sender.pcap.gz");
        Map<String, List<PacketEvent>> expected = CapturedPackets.byFlow(capture, "spool-host");
        long tcpPackets = CapturedPackets.count(expected);
        // With a 10 s linger no batch expires on this capture's time scale, so the first batch to
        // leave is that of the first FIN or RST (no flow reaches 512 packets before it: checked
        // below); the other flows seen before it are open then and leave with reason "spooling".
        Set<String> openAtFirstEnd = flowsOpenAtFirstFinOrRst(capture, new VantagePoint("spool-host", "if0"));

        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        AgentMetrics metrics = new AgentMetrics();
        DiskSpool spool = DiskSpool.open(dir, 256L << 20, PacketRecordWeight.INSTANCE);
        SpoolingPublisher publisher = new SpoolingPublisher(
                new KafkaProducer<>(ProducerSettings.build("127.0.0.1:" + closedPort, null, null, "batch-spool-it")),
                "t",
                spool,
                metrics,
                0,
                Duration.ofSeconds(1));
        BatchOptions batching = new BatchOptions(
                new BatchLimits(512, 64 * 1024, TimeUnit.SECONDS.toNanos(10), 1024),
                BatchOptions.LingerClock.CAPTURE_TIME);
        CapturePublisher packets = new CapturePublisher("spool-host", null, publisher, metrics, batching);
        try (InputStream in = Files.newInputStream(capture)) {
            packets.publishAll(CaptureReader.open(in, packets), ReplayPacer.UNPACED, () -> false);
        }
        packets.close();
        publisher.close();

        assertThat(metrics.spooled.sum()).isEqualTo(tcpPackets);
        assertThat(metrics.published.sum()).isZero();
        assertThat(metrics.dropped.sum()).isZero();
        assertThat(metrics.spooledBatches.sum()).isLessThan(tcpPackets);
        assertThat(metrics.batchFlushes()).containsEntry("spooling", (long) openAtFirstEnd.size());
        try (DiskSpool reopened = DiskSpool.open(dir, 256L << 20, PacketRecordWeight.INSTANCE)) {
            assertThat(reopened.pendingItems()).as("packets in the spool").isEqualTo(tcpPackets);
            assertThat(reopened.pendingRecords()).isEqualTo(metrics.spooledBatches.sum());
            Map<String, List<PacketEvent>> got = new LinkedHashMap<>();
            SpoolBatch all = reopened.peek(Integer.MAX_VALUE, Integer.MAX_VALUE);
            for (SpoolRecord r : all.records()) {
                PacketBatch batch = PacketBatch.getDecoder().decode(r.value());
                String key = new String(r.key(), StandardCharsets.UTF_8);
                assertThat(PacketBatches.flowKey(batch)).isEqualTo(key);
                assertThat(r.items()).isEqualTo(batch.getPackets().size());
                got.computeIfAbsent(key, k -> new ArrayList<>()).addAll(PacketBatches.toEvents(batch));
            }
            assertThat(got.keySet()).containsExactlyInAnyOrderElementsOf(expected.keySet());
            for (Map.Entry<String, List<PacketEvent>> flow : expected.entrySet()) {
                assertThat(got.get(flow.getKey()))
                        .as("flow %s", flow.getKey())
                        .containsExactlyElementsOf(flow.getValue());
            }
        }
    }

    /** The flows with packets before the capture's first FIN or RST, that one's own flow excluded. */
    private static Set<String> flowsOpenAtFirstFinOrRst(Path capture, VantagePoint vantage) throws Exception {
        Set<String> seen = new LinkedHashSet<>();
        Map<String, Integer> packets = new HashMap<>();
        try (InputStream in = Files.newInputStream(capture)) {
            CaptureReader reader = CaptureReader.open(in);
            CaptureRecord rec = new CaptureRecord();
            DecodedPacket p = new DecodedPacket();
            PacketDecoder decoder = new PacketDecoder();
            while (reader.next(rec)) {
                if (decoder.decode(rec, p) != DecodeStatus.TCP) {
                    continue;
                }
                String key = PacketEvents.flowKey(vantage, p);
                assertThat(packets.merge(key, 1, Integer::sum))
                        .as("packets of %s before the first FIN/RST", key)
                        .isLessThan(512);
                if ((p.flags & (DecodedPacket.FIN | DecodedPacket.RST)) != 0) {
                    seen.remove(key);
                    return seen;
                }
                seen.add(key);
            }
        }
        throw new AssertionError(capture + " has no FIN or RST");
    }
}
