package io.flowtrace.bench.job;

import static io.flowtrace.bench.job.JobBenchContext.report;
import static io.flowtrace.bench.job.JobBenchContext.stats;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * (3) Event → PostgreSQL latency at a paced input rate. The job runs (unbounded, parallelism 2,
 * heap) on an empty topic; a producer thread then publishes the replicated capture at {@code rate}
 * packets/s for {@code seconds}, each packet's capture time set to the wall-clock time just before
 * it is handed to the producer ({@link PacedInput}: batched per flow as a live agent does). A
 * trigger on flow_summary logs clock_timestamp() of every row write (inside the JDBC batch's
 * statement). A flow's latency is: first write whose end_state is fin or rst minus that row's
 * last_seen (the capture = publish time of the packet that closed the flow). A flow that closed
 * before its first periodic update (a short connection) has that first row at its close too: its
 * close-time row, the flow_summary row alone (docs/job.md "Per-flow state and time"), not its final
 * version, which comes after the 10 s close linger of event time and the 2 s out-of-orderness and
 * whose last_seen may be a later ACK. It covers producer batching, broker, source, the job, and the
 * JDBC batch interval (1000 ms default, kept). Under an output policy other than {@code all}
 * ({@code --job-options flow-rows=notable,...}) only the flows whose rows are written count.
 */
final class LatencyPhase {
    private final JobBenchContext bench;

    LatencyPhase(JobBenchContext bench) {
        this.bench = bench;
    }

    void run() throws Exception {
        int rate = PacedInput.rate(bench);
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

    /** One run: {p50, p99, max} in ms over the flows that closed. */
    private double[] latency(int rate, int seconds) throws Exception {
        String topic = bench.newTopic("bench.latency");
        JobClient job = startJob(topic, "latency-" + bench.nextSeq());
        Thread.sleep(8000); // job deployed, sources polling
        long total = (long) rate * seconds;
        long t0 = System.nanoTime();
        long behindMaxNs = PacedInput.publish(bench, topic, total, 1_000_000_000L / rate);
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
        StreamExecutionEnvironment env = bench.prepareJob(o);
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
        return env.executeAsync("bench-" + run);
    }
}
