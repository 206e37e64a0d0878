package io.flowtrace.jobs.reliability;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.flowtrace.avro.ConntrackSource;
import io.flowtrace.avro.PacketEvent;
import io.flowtrace.avro.Vantage;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.core.conntrack.ConntrackMessage;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.jobs.CaptureFixtures;
import io.flowtrace.jobs.conntrack.ConntrackFixtures;
import io.flowtrace.testkit.KafkaBroker;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Utils;

/**
 * The input of every failure scenario, identical record for record: the TCP packets of two committed
 * real captures with losses (cubic-loss: retransmissions; short-conns: many flows over 100 s, so many
 * windows), malformed records interleaved with them, and the real ctnetlink messages of two conntrack
 * recordings. Every record has a fixed partition (Kafka's default partitioner of its key) and a fixed
 * timestamp, so each scenario's own input topics hold the same bytes at the same offsets, and the
 * stopping offsets of a bounded source are known before anything is published.
 */
final class ReliabilityInput {
    static final int PARTITIONS = 2;
    static final Map<String, Vantage> CAPTURES = new LinkedHashMap<>();
    static final Map<String, Vantage> CONNTRACK = new LinkedHashMap<>();
    /** One malformed record after every this many packets. */
    private static final int MALFORMED_EVERY = 250;

    private static final long BASE_TIMESTAMP_MS = 1_796_000_000_000L;

    static {
        CAPTURES.put("tcp/cubic-loss.sender.pcap.gz", new Vantage("rel-cubic", "eth0"));
        CAPTURES.put("tcp/short-conns.sender.pcap.gz", new Vantage("rel-short", "eth0"));
        // Recording order, as live agents publish (see ConntrackBudgetITCase).
        CONNTRACK.put("v4_plain", new Vantage("rel-ct-plain", "ct"));
        CONNTRACK.put("burst", new Vantage("rel-ct-burst", "ct"));
    }

    /** A record as published: partition, timestamp, key, value. */
    record Rec(int partition, long timestampMs, byte[] key, byte[] value) {}

    final List<Rec> packets;
    final List<Rec> conntrack;
    final int packetCount;
    final int malformedPackets;
    final int malformedConntrack;
    final int conntrackEvents;

    private ReliabilityInput(
            List<Rec> packets,
            List<Rec> conntrack,
            int packetCount,
            int malformedPackets,
            int malformedConntrack,
            int conntrackEvents) {
        this.packets = packets;
        this.conntrack = conntrack;
        this.packetCount = packetCount;
        this.malformedPackets = malformedPackets;
        this.malformedConntrack = malformedConntrack;
        this.conntrackEvents = conntrackEvents;
    }

    static ReliabilityInput build() {
        List<Rec> packets = new ArrayList<>();
        Random random = new Random(10);
        List<byte[]> bad = malformedPacketValues(random);
        int packetCount = 0;
        int malformed = 0;
        DecodedPacket scratch = new DecodedPacket();
        for (Map.Entry<String, Vantage> capture : CAPTURES.entrySet()) {
            for (PacketEvent p : CaptureFixtures.packets(capture.getKey(), capture.getValue())) {
                PacketEvents.fromAvro(p, scratch);
                byte[] key = PacketEvents.flowKey(PacketEvents.vantagePoint(p.getVantage()), scratch)
                        .getBytes(UTF_8);
                packets.add(rec(packets.size(), key, encode(p::toByteBuffer)));
                packetCount++;
                if (packetCount % MALFORMED_EVERY == 0) {
                    packets.add(rec(
                            packets.size(),
                            ("malformed-" + malformed).getBytes(UTF_8),
                            bad.get(malformed % bad.size())));
                    malformed++;
                }
            }
        }
        List<Rec> conntrack = new ArrayList<>();
        int events = 0;
        for (Map.Entry<String, Vantage> c : CONNTRACK.entrySet()) {
            String vantage = PacketEvents.vantage(c.getValue());
            for (byte[] message : ConntrackFixtures.messages(c.getKey())) {
                ConntrackMessage core = ConntrackFixtures.parse(message);
                io.flowtrace.avro.ConntrackEvent avro =
                        ConntrackFixtures.toAvro(core, c.getValue(), ConntrackSource.NETLINK);
                String key = vantage + " " + core.family() + "/" + core.proto() + " "
                        + core.orig().srcText() + ":" + core.orig().srcPort() + " "
                        + core.orig().dstText() + ":" + core.orig().dstPort();
                conntrack.add(rec(conntrack.size(), key.getBytes(UTF_8), encode(avro::toByteBuffer)));
                events++;
            }
        }
        // Undecodable conntrack records spread over the stream: dead letters from the second source too.
        int ctBad = 4;
        for (int i = ctBad; i >= 1; i--) {
            byte[] garbage = new byte[1 + random.nextInt(120)];
            random.nextBytes(garbage);
            conntrack.add(i * conntrack.size() / (ctBad + 1), rec(0, ("ct-malformed-" + i).getBytes(UTF_8), garbage));
        }
        // Records keep their order; timestamps follow the position, as a live producer's would.
        for (int i = 0; i < conntrack.size(); i++) {
            conntrack.set(i, rec(i, conntrack.get(i).key(), conntrack.get(i).value()));
        }
        return new ReliabilityInput(packets, conntrack, packetCount, malformed, ctBad, events);
    }

    private static Rec rec(int index, byte[] key, byte[] value) {
        // Kafka's default partitioner for a keyed record: murmur2 of the key.
        int partition = Utils.toPositive(Utils.murmur2(key)) % PARTITIONS;
        return new Rec(partition, BASE_TIMESTAMP_MS + index, key, value);
    }

    /** Kinds the job must dead-letter (the hostile-input tests cover them at scale). */
    private static List<byte[]> malformedPacketValues(Random random) {
        List<byte[]> values = new ArrayList<>();
        byte[] garbage = new byte[97];
        random.nextBytes(garbage);
        values.add(garbage);
        PacketEvent valid = CaptureFixtures.packets("tcp/cubic-loss.sender.pcap.gz", new Vantage("rel-bad", "eth0"))
                .get(0);
        byte[] good = encode(valid::toByteBuffer);
        values.add(Arrays.copyOf(good, good.length / 2));
        byte[] wrongFingerprint = good.clone();
        wrongFingerprint[3] ^= 0x5a;
        values.add(wrongFingerprint);
        values.add(encode(PacketEvent.newBuilder(valid).setSrcPort(70_000).build()::toByteBuffer));
        values.add(encode(PacketEvent.newBuilder(valid).setCaptureTimeNs(1_000L).build()::toByteBuffer));
        return values;
    }

    private static byte[] encode(java.util.concurrent.Callable<ByteBuffer> encoder) {
        try {
            ByteBuffer b = encoder.call();
            byte[] out = new byte[b.remaining()];
            b.duplicate().get(out);
            return out;
        } catch (Exception e) {
            throw new IllegalStateException("cannot encode a fixture record", e);
        }
    }

    /** The first half of a record list (by position; each half keeps the order). */
    static List<Rec> firstHalf(List<Rec> records) {
        return records.subList(0, records.size() / 2);
    }

    static List<Rec> secondHalf(List<Rec> records) {
        return records.subList(records.size() / 2, records.size());
    }

    /** Offsets a topic holds after {@code records} were published to it, per partition (no transactions: contiguous). */
    static Map<TopicPartition, Long> endOffsets(String topic, List<Rec> records) {
        Map<TopicPartition, Long> end = new HashMap<>(); // serializable: it goes into the source
        for (int p = 0; p < PARTITIONS; p++) {
            end.put(new TopicPartition(topic, p), 0L);
        }
        for (Rec r : records) {
            end.merge(new TopicPartition(topic, r.partition()), 1L, Long::sum);
        }
        return end;
    }

    static void publish(KafkaBroker kafka, String topic, List<Rec> records) {
        try (KafkaProducer<byte[], byte[]> producer = kafka.newProducer()) {
            for (Rec r : records) {
                producer.send(new ProducerRecord<>(topic, r.partition(), r.timestampMs(), r.key(), r.value()));
            }
            producer.flush();
        }
    }
}
