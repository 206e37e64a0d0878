package io.flowtrace.bench.job;

import io.flowtrace.avro.PacketEvent;
import io.flowtrace.core.pcap.DecodedPacket;
import java.io.IOException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The paced input of the latency phases ((3) {@link LatencyPhase}, (6) {@link KafkaLatencyPhase}):
 * the offered rate, and a producer that publishes the replicated capture at that rate as a live agent
 * does, each packet's capture time set to the wall-clock time just before it is handed to the producer.
 */
final class PacedInput {
    private PacedInput() {}

    /**
     * {@code --rate}: packets/s, or {@code half-steady}: half the median steady rate of (2) at the
     * highest parallelism measured earlier in this run (the latency target is at half the
     * measured steady rate); 5,000 when (2) did not run.
     */
    static int rate(JobBenchContext bench) {
        String r = bench.arg("rate");
        if (!r.equals("half-steady")) {
            return Integer.parseInt(r);
        }
        double steady = bench.medians.entrySet().stream()
                .filter(e -> e.getKey().startsWith("steady p="))
                .mapToDouble(e -> e.getValue())
                .reduce((a, b) -> b)
                .orElse(10_000);
        return Double.isNaN(steady) ? 5_000 : Math.max(1, (int) (steady / 2));
    }

    /**
     * Publishes {@code total} packets, one every {@code intervalNs} on the wall clock (spinning, the
     * batches' linger checked while it waits), batched per flow as a live agent does ({@code --batch},
     * {@code --linger-ms} on the wall clock, flushed at FIN/RST; {@code --batch 0}: PacketEvents);
     * returns how far at most the producer fell behind, ns.
     */
    static long publish(JobBenchContext bench, String topic, long total, long intervalNs) throws IOException {
        DecodedPacket scratch = new DecodedPacket();
        long wallOffsetNs = System.currentTimeMillis() * 1_000_000L - System.nanoTime();
        long t0 = System.nanoTime();
        long behindMax = 0;
        int batch = bench.batchSize();
        try (KafkaProducer<byte[], byte[]> producer = bench.producer(5)) { // the topic is 8 s old: leaders settled
            // as a live agent batches: per flow, the linger on the wall clock (here System.nanoTime)
            AgentBatches batches = batch <= 0 ? null : new AgentBatches(producer, topic, batch, bench.lingerNs());
            for (long i = 0; i < total; i++) {
                long due = t0 + i * intervalNs;
                long now;
                while ((now = System.nanoTime()) < due) {
                    if (batches != null) {
                        batches.expire(now);
                    }
                    Thread.onSpinWait();
                }
                behindMax = Math.max(behindMax, now - due);
                PacketEvent p = bench.packets.get(i, false);
                p.setCaptureTimeNs(now + wallOffsetNs);
                if (batches != null) {
                    batches.add(p, scratch, now);
                } else {
                    producer.send(new ProducerRecord<>(
                            topic,
                            JobBenchContext.key(p, scratch),
                            p.toByteBuffer().array()));
                }
            }
            if (batches != null) {
                batches.flushAll();
            }
            producer.flush();
        }
        return behindMax;
    }
}
