package io.flowtrace.bench.job;

import io.flowtrace.avro.PacketEvent;
import io.flowtrace.core.pcap.DecodedPacket;
import java.io.IOException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The input topic of phases (1) and (2), filled once: packets 0..n-1 of the replication.
 *
 * @param time10Ns capture time (ns) of the packet at 10 % of the input
 * @param time90Ns capture time (ns) of the packet at 90 % of the input
 */
record InputTopic(String name, long packets, long records, long time10Ns, long time90Ns) {

    /**
     * Publishes packets 0..n-1 of the replication to a new topic. With batching, each flow's packets
     * are collected as an agent does (at most {@code --batch}, flushed when a later packet of the
     * input is {@code --linger-ms} of capture time after the batch's first, at FIN/RST and at the
     * end), so every flow's batches are in order and keyed like its packets.
     */
    static InputTopic fill(JobBenchContext bench, long n) throws IOException {
        String topic = bench.newTopic("bench.packets");
        long time10Ns = bench.packets.get(n / 10, true).getCaptureTimeNs();
        long time90Ns = bench.packets.get(n * 9 / 10, true).getCaptureTimeNs();
        DecodedPacket scratch = new DecodedPacket();
        try (KafkaProducer<byte[], byte[]> producer = bench.producer()) {
            if (bench.batchSize() <= 0) {
                for (long i = 0; i < n; i++) {
                    PacketEvent p = bench.packets.get(i, true);
                    producer.send(new ProducerRecord<>(
                            topic,
                            JobBenchContext.key(p, scratch),
                            p.toByteBuffer().array()));
                }
                producer.flush();
                return new InputTopic(topic, n, n, time10Ns, time90Ns);
            }
            AgentBatches batches = new AgentBatches(producer, topic, bench.batchSize(), bench.lingerNs());
            for (long i = 0; i < n; i++) {
                PacketEvent p = bench.packets.get(i, true);
                batches.add(p, scratch, p.getCaptureTimeNs());
            }
            batches.flushAll();
            producer.flush();
            return new InputTopic(topic, n, batches.records(), time10Ns, time90Ns);
        }
    }
}
