package io.flowtrace.bench.job;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.flowtrace.avro.PacketEvent;
import io.flowtrace.avro.mapping.PacketBatches;
import io.flowtrace.core.pcap.DecodedPacket;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Per-flow PacketBatches as the agent makes them: at most {@code max} packets, sent at FIN/RST
 * and once the linger clock ({@code now}: capture time for a file, the wall clock for a live
 * capture) is {@code lingerNs} past the batch's first packet, and at the end.
 */
final class AgentBatches {
    private final KafkaProducer<byte[], byte[]> producer;
    private final String topic;
    private final int max;
    private final long lingerNs;
    /** Open batches in opening order: the linger check looks at the oldest only. */
    private final LinkedHashMap<String, OpenBatch> open = new LinkedHashMap<>();

    private long records;

    AgentBatches(KafkaProducer<byte[], byte[]> producer, String topic, int max, long lingerNs) {
        this.producer = producer;
        this.topic = topic;
        this.max = max;
        this.lingerNs = lingerNs;
    }

    /** Kafka records sent so far. */
    long records() {
        return records;
    }

    /** Sends what {@code now} expires, then adds {@code p} ({@code scratch} is overwritten). */
    void add(PacketEvent p, DecodedPacket scratch, long now) throws IOException {
        expire(now);
        byte[] keyBytes = JobBenchContext.key(p, scratch); // also fills scratch
        String key = new String(keyBytes, UTF_8);
        OpenBatch b = open.get(key);
        if (b == null) {
            b = new OpenBatch(new PacketBatches.Builder(JobBenchContext.VANTAGE), now);
            open.put(key, b);
        }
        b.builder.add(scratch);
        if (b.builder.size() >= max || (scratch.flags & (DecodedPacket.FIN | DecodedPacket.RST)) != 0) {
            send(open.remove(key), key);
        }
    }

    void expire(long now) throws IOException {
        while (!open.isEmpty()) {
            Map.Entry<String, OpenBatch> oldest = open.entrySet().iterator().next();
            if (now - oldest.getValue().firstNs < lingerNs) {
                return;
            }
            send(open.remove(oldest.getKey()), oldest.getKey());
        }
    }

    void flushAll() throws IOException {
        for (Map.Entry<String, OpenBatch> e : open.entrySet()) {
            send(e.getValue(), e.getKey());
        }
        open.clear();
    }

    private void send(OpenBatch b, String key) throws IOException {
        producer.send(new ProducerRecord<>(
                topic, key.getBytes(UTF_8), b.builder.build().toByteBuffer().array()));
        records++;
    }

    private record OpenBatch(PacketBatches.Builder builder, long firstNs) {}
}
