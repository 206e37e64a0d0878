package io.flowtrace.bench.job;

import static io.flowtrace.bench.job.JobBenchContext.report;
import static io.flowtrace.bench.job.JobBenchContext.stats;

import io.flowtrace.avro.PacketEvent;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.jobs.FlowtraceJob;
import io.flowtrace.jobs.config.JobConfig;
import io.flowtrace.jobs.input.InputSources;
import io.flowtrace.jobs.output.JobSinks;
import io.flowtrace.jobs.output.PostgresSinks;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * (3) Event → PostgreSQL latency at a paced input rate. The job runs (unbounded, parallelism 2,
 * heap) on an empty topic; a producer thread then publishes the replicated capture at {@code rate}
 * packets/s for {@code seconds}, each packet's capture time set to the wall-clock time just before
 * it is handed to the producer, batched per flow as a live agent does ({@code --batch},
 * {@code --linger-ms} on the wall clock, flushed at FIN/RST; {@code --batch 0}: PacketEvents). A
 * trigger on flow_summary logs clock_timestamp() of every row write (inside the JDBC batch's
 * statement). A flow's latency is: first write whose end_state is fin or rst minus that row's
 * last_seen (the capture = publish time of the packet that closed the flow: the job writes that
 * version as soon as it sees the packet). It covers producer batching, broker, source, the job,
 * and the JDBC batch interval (1000 ms default, kept).
 */
final class LatencyPhase {
    private final JobBenchContext bench;

    LatencyPhase(JobBenchContext bench) {
        this.bench = bench;
    }

    void run() throws Exception {
        int rate = rate();
        String load = JobBenchContext.load();
        int seconds = bench.intArg("latency-seconds");
        List<Double> p50 = new ArrayList<>();
        List<Double> p99 = new ArrayList<>();
        List<Double> max = new ArrayList<>();
        for (int r = 0; r < bench.intArg("latency-runs"); r++) {
            double[] l = latency(rate, seconds);
            p50.add(l[0]);
            p99.add(l[1]);
            max.add(l[2]);
        }
        bench.remember("latency p99 ms", JobBenchContext.median(p99));
        bench.remember("latency rate", rate);
        report(
                "(3) event -> PostgreSQL latency at %,d packets/s = %,.0f flows/s offered (%s, linger on the wall clock;"
                        + " checkpoint interval %s ms), ms: p50 %s, p99 %s, max %s; load %s -> %s",
                rate,
                rate * bench.flowsPerPacket(),
                bench.batching(),
                bench.arg("latency-checkpoint-interval-ms"),
                stats(p50),
                stats(p99),
                stats(max),
                load,
                JobBenchContext.load());
    }

    /**
     * {@code --rate}: packets/s, or {@code half-steady}: half the median steady rate of (2) at the
     * highest parallelism measured earlier in this run (the latency target is at half the
     * measured steady rate); 5,000 when (2) did not run.
     */
    private int rate() {
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

    /** One run: {p50, p99, max} in ms over the flows that closed. */
    private double[] latency(int rate, int seconds) throws Exception {
        String topic = bench.newTopic("bench.latency");
        JobClient job = startJob(topic, "latency-" + bench.nextSeq());
        Thread.sleep(8000); // job deployed, sources polling
        long total = (long) rate * seconds;
        long t0 = System.nanoTime();
        long behindMaxNs = publishPaced(topic, total, 1_000_000_000L / rate);
        double sent = (System.nanoTime() - t0) / 1e9;
        Thread.sleep(10_000);
        job.cancel().get();
        Map<String, Object> r = bench.postgres.query("""
                WITH closes AS (
                    SELECT DISTINCT ON (vantage, client, server, instance)
                           extract(epoch FROM (written_at - last_seen)) * 1000 AS ms
                    FROM bench_writes WHERE end_state IN ('fin', 'rst')
                    ORDER BY vantage, client, server, instance, written_at)
                SELECT count(*) AS n, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS p50,
                       percentile_cont(0.99) WITHIN GROUP (ORDER BY ms) AS p99, max(ms) AS max FROM closes
                """).get(0);
        double p50 = ((Number) r.get("p50")).doubleValue();
        double p99 = ((Number) r.get("p99")).doubleValue();
        double max = ((Number) r.get("max")).doubleValue();
        report(
                "  latency run: %,d packets in %.1f s (%.0f/s offered, producer at most %.1f ms behind schedule), "
                        + "%s closed flows: p50 %.0f ms, p99 %.0f ms, max %.0f ms",
                total, sent, total / sent, behindMaxNs / 1e6, r.get("n"), p50, p99, max);
        return new double[] {p50, p99, max};
    }

    /** The unbounded job on {@code topic}, with the flow_summary write log (bench_writes) in place. */
    private JobClient startJob(String topic, String run) throws Exception {
        Map<String, String> o = bench.jobOptions(topic, run);
        o.put("bounded", "false");
        o.put("parallelism", "2");
        o.put("state-backend", "hashmap");
        o.put("checkpoint-interval-ms", bench.arg("latency-checkpoint-interval-ms"));
        bench.createOutputs(o);
        bench.resetTables();
        JobConfig config = JobConfig.of(o);
        PostgresSinks.applySchema(config);
        bench.postgres.execute("""
                CREATE TABLE bench_writes (vantage text, client text, server text, instance bigint, end_state text,
                    last_seen timestamptz, written_at timestamptz);
                CREATE OR REPLACE FUNCTION bench_log() RETURNS trigger AS $$
                BEGIN
                    INSERT INTO bench_writes VALUES (NEW.vantage, NEW.client, NEW.server, NEW.instance, NEW.end_state,
                        NEW.last_seen, clock_timestamp());
                    RETURN NEW;
                END $$ LANGUAGE plpgsql;
                CREATE TRIGGER bench_log AFTER INSERT OR UPDATE ON flow_summary FOR EACH ROW EXECUTE FUNCTION bench_log();
                """);
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(FlowtraceJob.flinkConfiguration(config));
        new FlowtraceJob(config, InputSources.packets(config), JobSinks.fromConfig(config)).build(env);
        return env.executeAsync("bench-" + run);
    }

    /**
     * Publishes {@code total} packets, one every {@code intervalNs} on the wall clock (spinning, the
     * batches' linger checked while it waits); returns how far at most the producer fell behind, ns.
     */
    private long publishPaced(String topic, long total, long intervalNs) throws IOException {
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
