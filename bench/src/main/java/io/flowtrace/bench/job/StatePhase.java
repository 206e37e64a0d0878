package io.flowtrace.bench.job;

import static io.flowtrace.bench.job.JobBenchContext.report;
import static java.nio.charset.StandardCharsets.UTF_8;

import io.flowtrace.avro.PacketEvent;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.jobs.FlowtraceJob;
import io.flowtrace.jobs.config.JobConfig;
import io.flowtrace.jobs.input.InputSources;
import io.flowtrace.jobs.output.JobSinks;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * (4) State bytes per idle flow, heap and RocksDB. Idle flows: the first 6 packets of every
 * connection (handshake and the first data, no FIN/RST), {@code copies} copies with the same
 * capture times (so no flow reaches its idle or update timer), into the unbounded job; once the
 * consumer group has committed every offset, a savepoint: its bytes on disk divided by the number
 * of live flows. Canonical format for both backends, RocksDB's native format too.
 */
final class StatePhase {
    private final JobBenchContext bench;

    StatePhase(JobBenchContext bench) {
        this.bench = bench;
    }

    /** The scale probe ({@link ScalePhase}): {@code flows} idle flows held in RocksDB. */
    void scale(long flows) throws Exception {
        new ScalePhase(bench, this).run(flows);
    }

    void run(int copies) throws Exception {
        for (String backend : List.of("hashmap", "rocksdb")) {
            stateSize(backend, copies);
        }
    }

    /**
     * The idle packets of one copy: the first 6 packets of every connection without FIN/RST;
     * {@code perFlow} receives one entry per flow.
     */
    List<PacketEvent> idlePackets(Map<String, Integer> perFlow) {
        List<PacketEvent> idle = new ArrayList<>();
        DecodedPacket scratch = new DecodedPacket();
        for (PacketEvent p : bench.packets.base()) {
            String k = new String(JobBenchContext.key(p, scratch), UTF_8);
            if ((p.getTcpFlags() & (DecodedPacket.FIN | DecodedPacket.RST)) == 0
                    && perFlow.merge(k, 1, Integer::sum) <= 6) {
                idle.add(p);
            }
        }
        return idle;
    }

    /** Job options of an unbounded state run without sinks on {@code topic}. */
    Map<String, String> idleJobOptions(String topic, String run, String backend) {
        Map<String, String> o = bench.jobOptions(topic, run);
        o.put("bounded", "false");
        o.put("parallelism", "2");
        o.put("state-backend", backend);
        o.put("checkpoint-interval-ms", "2000");
        o.put("postgres-output", "false");
        o.put("kafka-output", "false");
        return o;
    }

    /** Starts the job without sinks; {@code flink} adds Flink settings to the job's own. */
    static JobClient startWithoutSinks(Map<String, String> o, Configuration flink, String run) throws Exception {
        JobConfig config = JobConfig.of(o);
        Configuration c = FlowtraceJob.flinkConfiguration(config);
        c.addAll(flink);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(c);
        new FlowtraceJob(
                        config,
                        InputSources.packets(config),
                        new JobSinks(List.of(), List.of(), List.of(), List.of(), List.of()))
                .build(env);
        return env.executeAsync("bench-" + run);
    }

    private void stateSize(String backend, int copies) throws Exception {
        Map<String, Integer> perFlow = new HashMap<>();
        List<PacketEvent> idle = idlePackets(perFlow);
        String topic = bench.newTopic("bench.idle");
        long published = publishCopies(topic, idle, copies, new DecodedPacket());
        long flows = (long) perFlow.size() * copies;
        String run = "state-" + backend + "-" + bench.nextSeq();
        JobClient job = startWithoutSinks(idleJobOptions(topic, run, backend), new Configuration(), run);
        waitForCommitted(topic, "bench-" + run, published);
        Map<String, Long> sizes = new LinkedHashMap<>();
        sizes.put("canonical", savepointBytes(job, SavepointFormatType.CANONICAL, run));
        if (backend.equals("rocksdb")) {
            sizes.put("native", savepointBytes(job, SavepointFormatType.NATIVE, run));
        }
        job.cancel().get();
        for (Map.Entry<String, Long> e : sizes.entrySet()) {
            report(
                    "(4) state %s, %s savepoint: %,d bytes for %,d live flows (%,d packets) = %.0f bytes per idle flow",
                    backend, e.getKey(), e.getValue(), flows, published, e.getValue() / (double) flows);
        }
    }

    /** Publishes {@code copies} copies of {@code idle} (same capture times); returns the records sent. */
    long publishCopies(String topic, List<PacketEvent> idle, int copies, DecodedPacket scratch) throws IOException {
        long published = 0;
        try (KafkaProducer<byte[], byte[]> producer = bench.producer()) {
            for (int c = 0; c < copies; c++) {
                for (PacketEvent p : idle) {
                    PacketEvent q = bench.packets.copy(p, c, false);
                    producer.send(new ProducerRecord<>(
                            topic,
                            JobBenchContext.key(q, scratch),
                            q.toByteBuffer().array()));
                    published++;
                }
            }
            producer.flush();
        }
        return published;
    }

    void waitForCommitted(String topic, String group, long total) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
        while (System.nanoTime() < deadline) {
            if (committed(topic, group) >= total) {
                return;
            }
            Thread.sleep(1000);
        }
        throw new IllegalStateException("the job did not consume " + total + " records of " + topic + " within 10 min");
    }

    /**
     * The offsets {@code group} has committed on {@code topic}, summed over its partitions: the
     * records consumed, as the producer is idempotent without transactions (no markers) and every
     * partition starts at offset 0.
     */
    long committed(String topic, String group) throws Exception {
        try (Admin admin = Admin.create(bench.kafka.clientProperties())) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata()
                    .get();
            long sum = 0;
            for (Map.Entry<TopicPartition, OffsetAndMetadata> e : committed.entrySet()) {
                if (e.getValue() != null && e.getKey().topic().equals(topic)) {
                    sum += e.getValue().offset();
                }
            }
            return sum;
        }
    }

    private long savepointBytes(JobClient job, SavepointFormatType format, String run) throws Exception {
        Path dir = bench.work.resolve("savepoints-" + run + "-" + format.name().toLowerCase(Locale.ROOT));
        String path = job.triggerSavepoint(dir.toUri().toString(), format).get();
        try (Stream<Path> files = Files.walk(Path.of(URI.create(path.startsWith("file:") ? path : "file://" + path)))) {
            return files.filter(Files::isRegularFile)
                    .mapToLong(f -> {
                        try {
                            return Files.size(f);
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    })
                    .sum();
        }
    }
}
