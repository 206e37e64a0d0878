package io.flowtrace.agent.testing;

import io.flowtrace.avro.PacketBatch;
import io.flowtrace.avro.PacketEvent;
import io.flowtrace.avro.Vantage;
import io.flowtrace.avro.mapping.PacketBatches;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.core.pcap.CaptureReader;
import io.flowtrace.core.pcap.CaptureRecord;
import io.flowtrace.core.pcap.DecodeStatus;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.core.pcap.PacketDecoder;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The independent side of the agent tests: what a capture holds, decoded straight from the file
 * with core's reader and decoder (no agent code), and what a topic holds, grouped the same way.
 */
public final class CapturedPackets {
    private CapturedPackets() {}

    /** TCP packets of {@code file} per flow key, in capture order; vantage agent/if&lt;interface id&gt;. */
    public static Map<String, List<PacketEvent>> byFlow(Path file, String agentId) throws Exception {
        Map<String, List<PacketEvent>> flows = new LinkedHashMap<>();
        try (InputStream in = Files.newInputStream(file)) {
            CaptureReader reader = CaptureReader.open(in);
            CaptureRecord rec = new CaptureRecord();
            DecodedPacket p = new DecodedPacket();
            PacketDecoder decoder = new PacketDecoder();
            while (reader.next(rec)) {
                if (decoder.decode(rec, p) != DecodeStatus.TCP) {
                    continue;
                }
                Vantage v = Vantage.newBuilder()
                        .setAgentId(agentId)
                        .setInterfaceName("if" + rec.interfaceId)
                        .build();
                flows.computeIfAbsent(PacketEvents.flowKey(PacketEvents.vantagePoint(v), p), k -> new ArrayList<>())
                        .add(PacketEvents.toAvro(p, v));
            }
        }
        return flows;
    }

    /**
     * Records of a topic per key, in offset order, a PacketBatch expanded to its packets by the
     * contract's mapping ({@link PacketBatches#toEvents}); fails if a key shows up in two partitions
     * or a batch's key is not its flow's.
     */
    public static Map<String, List<PacketEvent>> byFlow(List<ConsumerRecord<byte[], byte[]>> records) throws Exception {
        Map<String, List<PacketEvent>> flows = new LinkedHashMap<>();
        Map<String, Integer> partitionOf = new LinkedHashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : records) {
            String key = new String(r.key(), java.nio.charset.StandardCharsets.UTF_8);
            Integer before = partitionOf.putIfAbsent(key, r.partition());
            if (before != null && before != r.partition()) {
                throw new AssertionError("flow " + key + " in partitions " + before + " and " + r.partition());
            }
            List<PacketEvent> flow = flows.computeIfAbsent(key, k -> new ArrayList<>());
            long fingerprint = PacketBatches.fingerprintOf(r.value());
            if (fingerprint == PacketBatches.FINGERPRINT) {
                PacketBatch batch = PacketBatch.getDecoder().decode(r.value());
                if (!PacketBatches.flowKey(batch).equals(key)) {
                    throw new AssertionError("batch of flow " + PacketBatches.flowKey(batch) + " under key " + key);
                }
                flow.addAll(PacketBatches.toEvents(batch));
            } else {
                flow.add(PacketEvent.getDecoder().decode(r.value()));
            }
        }
        return flows;
    }

    /** How many records of a topic are PacketBatches (the rest are PacketEvents). */
    public static long batches(List<ConsumerRecord<byte[], byte[]>> records) {
        long n = 0;
        for (ConsumerRecord<byte[], byte[]> r : records) {
            if (PacketBatches.fingerprintOf(r.value()) == PacketBatches.FINGERPRINT) {
                n++;
            }
        }
        return n;
    }

    public static long count(Map<String, List<PacketEvent>> flows) {
        long n = 0;
        for (List<PacketEvent> l : flows.values()) {
            n += l.size();
        }
        return n;
    }
}
