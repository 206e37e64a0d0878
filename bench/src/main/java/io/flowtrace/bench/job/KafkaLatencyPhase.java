package io.flowtrace.bench.job;

import static io.flowtrace.bench.job.JobBenchContext.report;
import static io.flowtrace.bench.job.JobBenchContext.stats;

import io.flowtrace.avro.FlowEnd;
import io.flowtrace.avro.FlowIdentity;
import io.flowtrace.avro.FlowRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/**
 * (6) Event → Kafka flows topic latency under exactly-once, per checkpoint interval. The job runs as
 * in (3) (unbounded, parallelism 2, heap, all outputs) at each interval of
 * {@code --kafka-latency-checkpoint-intervals-ms}; the paced producer of {@link PacedInput} publishes
 * the replicated capture, capture time = publish time. A reader with {@code isolation.level=read_committed}
 * polls the flows topic from its start while the job runs: a record becomes visible to it only when
 * the checkpoint that commits its transaction has completed. A flow's latency is the visibility time
 * (the wall clock when the poll that returned it came back) of its first record with end FIN or RST
 * minus that record's {@code last_seen_us} (the publish time of the flow's last packet), as (3) takes
 * the first fin/rst row. Each such latency splits in two: the job's part, the broker's append time of
 * the record (the flows topic is {@code LogAppendTime}, {@link JobBenchContext#createOutputs}) minus
 * {@code last_seen_us}, and the commit wait, visibility minus append time: the part the checkpoint
 * interval sets (about half the interval on average, up to interval + checkpoint duration). The first
 * fin/rst record of a short connection is its final version, after the 10 s close linger of event
 * time and the 2 s out-of-orderness: the input goes on for 15 s after the {@code --latency-seconds}
 * measured, so that those flows end, and is not counted.
 */
final class KafkaLatencyPhase {
    /** A visible record waits at most this long in the broker's fetch purgatory before the reader sees it. */
    private static final int FETCH_MAX_WAIT_MS = 20;
    /** Input after the measured stretch, so that its flows' close lingers end (10 s + 2 s out-of-orderness). */
    private static final int TAIL_SECONDS = 15;

    private final JobBenchContext bench;

    KafkaLatencyPhase(JobBenchContext bench) {
        this.bench = bench;
    }

    void run() throws Exception {
        int rate = PacedInput.rate(bench);
        int seconds = bench.intArg("latency-seconds");
        for (String interval :
                bench.arg("kafka-latency-checkpoint-intervals-ms").split(",")) {
            String load = JobBenchContext.load();
            List<Double> p50 = new ArrayList<>();
            List<Double> p99 = new ArrayList<>();
            List<Double> max = new ArrayList<>();
            List<Double> waitP50 = new ArrayList<>();
            List<Double> waitP99 = new ArrayList<>();
            for (int r = 0; r < bench.intArg("latency-runs"); r++) {
                double[] l = latency(rate, seconds, Long.parseLong(interval.strip()));
                p50.add(l[0]);
                p99.add(l[1]);
                max.add(l[2]);
                waitP50.add(l[3]);
                waitP99.add(l[4]);
            }
            bench.remember("kafka latency p99 ms at " + interval.strip() + " ms", JobBenchContext.median(p99));
            report(
                    "(6) event -> Kafka flows topic (exactly-once, read_committed) latency at checkpoint interval %s ms,"
                            + " %,d packets/s = %,.0f flows/s offered (%s, linger on the wall clock), ms: p50 %s,"
                            + " p99 %s, max %s; of which the commit wait (visible - append time): p50 %s, p99 %s;"
                            + " load %s -> %s",
                    interval.strip(),
                    rate,
                    rate * bench.flowsPerPacket(),
                    bench.batching(),
                    stats(p50),
                    stats(p99),
                    stats(max),
                    stats(waitP50),
                    stats(waitP99),
                    load,
                    JobBenchContext.load());
        }
    }

    /** One run: {p50, p99, max, commit wait p50, commit wait p99} in ms over the flows seen closing. */
    private double[] latency(int rate, int seconds, long checkpointIntervalMs) throws Exception {
        String topic = bench.newTopic("bench.kafka-latency");
        String run = "kafka-latency-" + bench.nextSeq();
        Map<String, String> o = bench.jobOptions(topic, run);
        JobClient job = startJob(o, run, checkpointIntervalMs);
        CommittedReader reader = new CommittedReader(o.get("flows-topic"));
        Thread readerThread = new Thread(reader, "read-committed-" + run);
        readerThread.start();
        Thread.sleep(8000); // job deployed, sources polling
        long total = (long) rate * seconds;
        // A short connection's first fin/rst record is its final version, emitted when the watermark
        // passes its close + the 10 s linger, which takes 2 s (the out-of-orderness) of later input
        // after that: the input goes on for TAIL_SECONDS after the measured packets, as live traffic
        // would, and only the flows whose last packet was published in the measured stretch count.
        long measuredFromMs = System.currentTimeMillis();
        long t0 = System.nanoTime();
        long behindMaxNs = PacedInput.publish(bench, topic, total + (long) rate * TAIL_SECONDS, 1_000_000_000L / rate);
        double sent = (System.nanoTime() - t0) / 1e9;
        // the last records wait for the checkpoint that commits them (up to an interval and its duration)
        Thread.sleep(5_000 + 2 * checkpointIntervalMs);
        reader.stopAfter(readerThread, job);
        List<double[]> measured = reader.closedBefore(measuredFromMs + seconds * 1000L + behindMaxNs / 1_000_000L);
        if (measured.isEmpty()) {
            throw new IllegalStateException("no flow closing in the measured stretch became visible on "
                    + o.get("flows-topic") + " (" + reader.records + " records read committed)");
        }
        double[] latency = measured.stream().mapToDouble(m -> m[1]).sorted().toArray();
        double[] wait = measured.stream().mapToDouble(m -> m[2]).sorted().toArray();
        double[] r = {
            percentile(latency, 0.5),
            percentile(latency, 0.99),
            latency[latency.length - 1],
            percentile(wait, 0.5),
            percentile(wait, 0.99)
        };
        report(
                "  kafka latency run, checkpoint interval %d ms: %,d packets measured of %,d in %.1f s (%.0f/s offered,"
                        + " producer at most %.1f ms behind schedule), %,d records read committed, %,d flows of the"
                        + " measured stretch seen closing (of ≈ %,.0f offered): p50 %.0f ms, p99 %.0f ms, max %.0f ms;"
                        + " commit wait p50 %.0f ms, p99 %.0f ms",
                checkpointIntervalMs,
                total,
                total + (long) rate * TAIL_SECONDS,
                sent,
                (total + (long) rate * TAIL_SECONDS) / sent,
                behindMaxNs / 1e6,
                reader.records,
                latency.length,
                total * bench.flowsPerPacket(),
                r[0],
                r[1],
                r[2],
                r[3],
                r[4]);
        return r;
    }

    /** The unbounded job (parallelism 2, heap, every output) at the checkpoint interval. */
    private JobClient startJob(Map<String, String> o, String run, long checkpointIntervalMs) throws Exception {
        o.put("bounded", "false");
        o.put("parallelism", "2");
        o.put("state-backend", "hashmap");
        o.put("checkpoint-interval-ms", Long.toString(checkpointIntervalMs));
        StreamExecutionEnvironment env = bench.prepareJob(o);
        return env.executeAsync("bench-" + run);
    }

    /** PostgreSQL's percentile_cont over sorted values, as (3) computes its percentiles. */
    static double percentile(double[] sorted, double q) {
        double pos = q * (sorted.length - 1);
        int lo = (int) Math.floor(pos);
        int hi = (int) Math.ceil(pos);
        return sorted[lo] + (pos - lo) * (sorted[hi] - sorted[lo]);
    }

    /** Polls the flows topic from its start with read_committed until stopped; keeps each flow's first fin/rst record. */
    private final class CommittedReader implements Runnable {
        final AtomicBoolean stop = new AtomicBoolean();
        /** Per flow seen closing: {its last packet's publish time, latency, commit wait}, ms. */
        final List<double[]> closing = new ArrayList<>();

        final Set<String> closed = new HashSet<>();
        final String topic;
        long records;
        volatile Exception failure;

        CommittedReader(String topic) {
            this.topic = topic;
        }

        /** Stops this reader (running in {@code thread}), then the job. */
        void stopAfter(Thread thread, JobClient job) throws Exception {
            stop.set(true);
            thread.join();
            job.cancel().get();
            if (failure != null) {
                throw new IllegalStateException("read_committed reader failed", failure);
            }
        }

        /** The flows whose last packet was published up to {@code untilMs} (call once the reader stopped). */
        List<double[]> closedBefore(long untilMs) {
            List<double[]> out = new ArrayList<>();
            for (double[] c : closing) {
                if (c[0] <= untilMs) {
                    out.add(c);
                }
            }
            return out;
        }

        @Override
        public void run() {
            Map<String, String> readCommitted = Map.of(
                    "isolation.level", "read_committed",
                    "enable.auto.commit", "false",
                    "fetch.max.wait.ms", Integer.toString(FETCH_MAX_WAIT_MS));
            try (KafkaConsumer<byte[], byte[]> consumer = bench.consumerFromStart(topic, readCommitted)) {
                while (!stop.get()) {
                    ConsumerRecords<byte[], byte[]> polled = consumer.poll(Duration.ofMillis(100));
                    long visibleMs = System.currentTimeMillis(); // before decoding: the poll's return is the visibility
                    for (ConsumerRecord<byte[], byte[]> r : polled) {
                        records++;
                        FlowRecord f = FlowRecord.getDecoder().decode(r.value());
                        if (f.getEnd() != FlowEnd.FIN && f.getEnd() != FlowEnd.RST) {
                            continue;
                        }
                        FlowIdentity id = f.getFlow();
                        String key =
                                id.getVantage() + " " + id.getClient() + " " + id.getServer() + " " + id.getInstance();
                        if (closed.add(key)) {
                            double lastPacketMs = f.getLastSeenUs() / 1000.0;
                            closing.add(
                                    new double[] {lastPacketMs, visibleMs - lastPacketMs, visibleMs - r.timestamp()});
                        }
                    }
                }
            } catch (Exception e) {
                failure = e;
            }
        }
    }
}
