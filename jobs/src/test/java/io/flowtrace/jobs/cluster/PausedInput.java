package io.flowtrace.jobs.cluster;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.flowtrace.avro.PacketEvent;
import io.flowtrace.avro.Vantage;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.jobs.CaptureFixtures;
import io.flowtrace.testkit.cluster.KafkaServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * A capture's packets as an agent publishes them (key = canonical flow key, value = PacketEvent),
 * each flow pinned to one partition, so a test can publish a chosen part of each partition's
 * input, pause, and publish the rest: per-flow order is kept, event time per partition is the test's.
 */
final class PausedInput {
    private PausedInput() {}

    record Rec(long timeMs, int partition, byte[] key, byte[] value) {}

    static List<Rec> records(String capture, String agentId, int partitions) {
        List<Rec> out = new ArrayList<>();
        DecodedPacket scratch = new DecodedPacket();
        for (PacketEvent p : CaptureFixtures.packets(capture, new Vantage(agentId, "eth0"))) {
            PacketEvents.fromAvro(p, scratch);
            String key = PacketEvents.flowKey(PacketEvents.vantagePoint(p.getVantage()), scratch);
            try {
                out.add(new Rec(
                        p.getCaptureTimeNs() / 1_000_000,
                        (key.hashCode() & 0x7fffffff) % partitions,
                        key.getBytes(UTF_8),
                        p.toByteBuffer().array()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return out;
    }

    static void publish(KafkaServer kafka, String topic, List<Rec> records) {
        try (KafkaProducer<byte[], byte[]> producer = kafka.newProducer()) {
            for (Rec r : records) {
                producer.send(new ProducerRecord<>(topic, r.partition(), r.key(), r.value()));
            }
            producer.flush();
        }
    }
}
