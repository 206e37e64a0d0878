package io.flowtrace.bench.job;

import static io.flowtrace.bench.job.JobBenchContext.report;

import io.flowtrace.avro.BoundedBinaryDecoder;
import io.flowtrace.avro.PacketBatch;
import io.flowtrace.avro.PacketEvent;
import io.flowtrace.avro.mapping.PacketBatches;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.core.pcap.DecodedPacket;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.avro.message.BinaryMessageDecoder;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * (1) A plain consumer from the beginning, every record decoded as the job's flow function
 * decodes it (Avro with a reused record over the same length-checking {@link BoundedBinaryDecoder},
 * then every packet into a DecodedPacket); packets/s. Not done here, unlike the job: the source's
 * read of a batch's header and key check, and the per-packet validation.
 */
final class ConsumePhase {
    private final JobBenchContext bench;

    ConsumePhase(JobBenchContext bench) {
        this.bench = bench;
    }

    void run(InputTopic input, int runs) throws IOException {
        String load = JobBenchContext.load();
        List<Double> rates = new ArrayList<>();
        for (int r = 0; r < runs; r++) {
            rates.add(consume(input.name(), input.packets()));
        }
        bench.remember("consume", JobBenchContext.median(rates));
        report(
                "(1) consume + Avro decode (%s): %s; load %s -> %s",
                bench.batching(), bench.rates(rates), load, JobBenchContext.load());
    }

    private double consume(String topic, long n) throws IOException {
        Properties props = bench.kafka.clientProperties();
        props.put("max.poll.records", "5000");
        props.put("fetch.max.bytes", Integer.toString(64 << 20));
        props.put("max.partition.fetch.bytes", Integer.toString(16 << 20));
        BinaryMessageDecoder<PacketEvent> decoder = PacketEvent.getDecoder();
        SpecificDatumReader<PacketBatch> batchReader = new SpecificDatumReader<>(PacketBatch.class);
        BoundedBinaryDecoder binary = new BoundedBinaryDecoder(new byte[0], 0, 0);
        PacketEvent reuse = new PacketEvent();
        PacketBatch batch = null;
        DecodedPacket packet = new DecodedPacket();
        long count = 0;
        long records = 0;
        long checksum = 0;
        long t0 = System.nanoTime();
        try (KafkaConsumer<byte[], byte[]> c =
                new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> parts = new ArrayList<>();
            for (int p = 0; p < JobBenchContext.PARTITIONS; p++) {
                parts.add(new TopicPartition(topic, p));
            }
            c.assign(parts);
            c.seekToBeginning(parts);
            while (count < n) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
                    byte[] v = r.value();
                    records++;
                    if (PacketBatches.fingerprintOf(v) == PacketBatches.FINGERPRINT) {
                        batch = batchReader.read(batch, binary.reset(v, 10, v.length - 10));
                        for (int i = 0; i < batch.getPackets().size(); i++) {
                            PacketBatches.fromAvro(batch, i, packet);
                            checksum += packet.seq;
                            count++;
                        }
                    } else {
                        reuse = decoder.decode(v, reuse);
                        PacketEvents.fromAvro(reuse, packet);
                        checksum += packet.seq;
                        count++;
                    }
                }
            }
        }
        double rate = count / ((System.nanoTime() - t0) / 1e9);
        report(
                "  consume run: %,d packets in %,d records, %.0f packets/s (checksum %d)",
                count, records, rate, checksum);
        return rate;
    }
}
