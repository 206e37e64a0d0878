package io.flowtrace.bench.job;

import static io.flowtrace.bench.job.JobBenchContext.report;

import io.flowtrace.avro.FlowRecord;
import io.flowtrace.jobs.FlowtraceJob;
import io.flowtrace.jobs.config.JobConfig;
import io.flowtrace.jobs.input.InputSources;
import io.flowtrace.jobs.output.JobSinks;
import io.flowtrace.jobs.output.PostgresSinks;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.avro.message.BinaryMessageDecoder;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * (2) The whole job (bounded) on the filled topic to PostgreSQL and exactly-once Kafka, at each
 * {@code --parallelism}: the wall-time rate and the steady rate over the middle 80 % of the input
 * ({@link #steadyRate}).
 */
final class ThroughputPhase {
    private final JobBenchContext bench;

    ThroughputPhase(JobBenchContext bench) {
        this.bench = bench;
    }

    void run(InputTopic input, int runs) throws Exception {
        String outputs = switch (bench.arg("outputs")) {
            case "kafka" -> "Kafka only";
            case "postgres" -> "PostgreSQL only";
            default -> "PostgreSQL + Kafka";
        };
        for (String p : bench.arg("parallelism").split(",")) {
            String load = JobBenchContext.load();
            List<Double> rates = new ArrayList<>();
            List<Double> steady = new ArrayList<>();
            for (int r = 0; r < runs; r++) {
                double[] rate = jobThroughput(input, Integer.parseInt(p));
                rates.add(rate[0]);
                steady.add(rate[1]);
            }
            bench.remember("steady p=" + p, JobBenchContext.median(steady));
            report(
                    "(2) job to %s (%s), parallelism %s: %s (wall time of the bounded job, startup included), steady %s;"
                            + " load %s -> %s",
                    outputs,
                    bench.batching(),
                    p,
                    bench.rates(rates),
                    bench.rates(steady),
                    load,
                    JobBenchContext.load());
        }
    }

    /**
     * The bounded job over the whole topic: {wall-time rate (MiniCluster start, deployment and
     * the final checkpoint included), steady rate ({@link #steadyRate})} in packets/s.
     */
    private double[] jobThroughput(InputTopic input, int parallelism) throws Exception {
        long n = input.packets();
        String run = "job-p" + parallelism + "-" + bench.nextSeq();
        Map<String, String> o = bench.jobOptions(input.name(), run);
        o.put("bounded", "true");
        // A bounded job ends with a final checkpoint (Kafka transactions commit on checkpoints): a short
        // interval keeps that wait from dominating the wall time.
        o.put("checkpoint-interval-ms", bench.arg("checkpoint-interval-ms"));
        o.put("parallelism", Integer.toString(parallelism));
        o.put("state-backend", "hashmap");
        // --outputs all|kafka|postgres: what the sink side costs (the steady rate needs the Kafka flows topic)
        String outputs = bench.arg("outputs");
        o.put("kafka-output", Boolean.toString(!outputs.equals("postgres")));
        o.put("postgres-output", Boolean.toString(!outputs.equals("kafka")));
        bench.createOutputs(o);
        bench.resetTables();
        JobConfig config = JobConfig.of(o);
        PostgresSinks.applySchema(config);
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(FlowtraceJob.flinkConfiguration(config));
        new FlowtraceJob(config, InputSources.packets(config), JobSinks.fromConfig(config)).build(env);
        long t0 = System.nanoTime();
        env.execute("bench-" + run);
        double seconds = (System.nanoTime() - t0) / 1e9;
        long flows = outputs.equals("kafka")
                ? -1
                : (Long) bench.postgres
                        .query("SELECT count(*) AS n FROM flow_summary")
                        .get(0)
                        .get("n");
        long expectedFlows = bench.flowsPerCopy * (n / bench.packets.size());
        double steady = outputs.equals("postgres") ? Double.NaN : steadyRate(o.get("flows-topic"), input);
        report(
                "  job run p=%d: %.1f s, %.0f packets/s, steady %.0f packets/s = %.0f flows/s, %,d flow rows (expected %,d)",
                parallelism, seconds, n / seconds, steady, steady * bench.flowsPerPacket(), flows, expectedFlows);
        return new double[] {n / seconds, steady};
    }

    /**
     * Packets/s over the middle 80 % of the input: 0.8 n divided by the time between the first
     * flow-record write (broker append time) whose record time reaches the capture time of the
     * packet at 10 % of the input and the first that reaches the one at 90 %. Capture times grow
     * with the input position (shifted per copy), and a flow record is written when the job
     * processes the packet or passes the event time it names, so this excludes MiniCluster start,
     * deployment and the final checkpoint; a constant sink delay cancels out.
     */
    private double steadyRate(String flowsTopic, InputTopic input) {
        Properties props = bench.kafka.clientProperties();
        props.put("isolation.level", "read_committed");
        props.put("max.poll.records", "5000");
        long t10 = Long.MAX_VALUE;
        long t90 = Long.MAX_VALUE;
        long us10 = input.time10Ns() / 1000;
        long us90 = input.time90Ns() / 1000;
        BinaryMessageDecoder<FlowRecord> decoder = FlowRecord.getDecoder();
        FlowRecord reuse = new FlowRecord();
        try (KafkaConsumer<byte[], byte[]> c =
                new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> parts = new ArrayList<>();
            for (int p = 0; p < JobBenchContext.PARTITIONS; p++) {
                parts.add(new TopicPartition(flowsTopic, p));
            }
            c.assign(parts);
            c.seekToBeginning(parts);
            Map<TopicPartition, Long> end = c.endOffsets(parts);
            while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
                    reuse = decoder.decode(r.value(), reuse);
                    long recordUs = reuse.getRecordTimeUs();
                    if (recordUs >= us10) {
                        t10 = Math.min(t10, r.timestamp());
                    }
                    if (recordUs >= us90) {
                        t90 = Math.min(t90, r.timestamp());
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (t10 == Long.MAX_VALUE || t90 <= t10) {
            return Double.NaN;
        }
        return 0.8 * input.packets() / ((t90 - t10) / 1000.0);
    }
}
