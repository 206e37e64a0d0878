package io.flowtrace.bench.job;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.flowtrace.avro.PacketEvent;
import io.flowtrace.avro.Vantage;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.jobs.FlowtraceJob;
import io.flowtrace.jobs.config.JobConfig;
import io.flowtrace.jobs.input.InputSources;
import io.flowtrace.jobs.output.JobSinks;
import io.flowtrace.jobs.output.PostgresSinks;
import io.flowtrace.testkit.KafkaBroker;
import io.flowtrace.testkit.Postgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * What every phase of {@link JobBench} shares: its options, the broker and the database, the
 * replicated capture, topics, producers, the job's options and the report lines.
 */
final class JobBenchContext {
    static final Vantage VANTAGE = new Vantage("bench", "eth0");
    static final int PARTITIONS = 2;

    final KafkaBroker kafka;
    final Postgres postgres;
    final Path work;
    final BenchPackets packets;
    /** Flows per copy of the capture, as the offline analysis counts them (instances included). */
    final long flowsPerCopy;

    private final Map<String, String> args;
    /** Medians of this run by name ("consume", "analyze", "steady p=2", ...), for {@link Targets}. */
    final Map<String, Double> medians = new LinkedHashMap<>();

    private int topicSeq;

    JobBenchContext(
            Map<String, String> args,
            KafkaBroker kafka,
            Postgres postgres,
            Path work,
            BenchPackets packets,
            long flows) {
        this.args = args;
        this.kafka = kafka;
        this.postgres = postgres;
        this.work = work;
        this.packets = packets;
        this.flowsPerCopy = flows;
    }

    String arg(String name) {
        return args.get(name);
    }

    int intArg(String name) {
        return Integer.parseInt(args.get(name));
    }

    /** A new number for a topic or a run, so that runs never share topics, groups or tables' rows. */
    int nextSeq() {
        return ++topicSeq;
    }

    String newTopic(String prefix) {
        String t = prefix + "." + nextSeq();
        createTopics(t);
        return t;
    }

    /**
     * testkit's createTopics, tolerating its wait for leaders failing with UNKNOWN_TOPIC_OR_PARTITION
     * (topic metadata not yet visible to describeTopics on a loaded machine): then this waits itself.
     */
    void createTopics(String... names) {
        try {
            kafka.createTopics(PARTITIONS, names);
            return;
        } catch (IllegalStateException e) {
            if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                throw e;
            }
        }
        try (Admin admin = Admin.create(kafka.clientProperties())) {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < deadline) {
                try {
                    boolean ready = admin.describeTopics(List.of(names)).allTopicNames().get().values().stream()
                            .allMatch(d -> d.partitions().stream()
                                    .allMatch(p ->
                                            p.leader() != null && !p.leader().isEmpty()));
                    if (ready) {
                        return;
                    }
                } catch (Exception retry) {
                    // not visible yet
                }
                Thread.sleep(200);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        throw new IllegalStateException("topics " + List.of(names) + " have no leaders after 60 s");
    }

    KafkaProducer<byte[], byte[]> producer() {
        return producer(1);
    }

    /** Idempotent; one request in flight for brand-new topics (their leaders are still moving), more once leaders are settled. */
    KafkaProducer<byte[], byte[]> producer(int inFlight) {
        Properties props = kafka.clientProperties();
        props.put("acks", "all");
        props.put("enable.idempotence", "true");
        props.put("max.in.flight.requests.per.connection", Integer.toString(inFlight));
        props.put("linger.ms", "5");
        props.put("batch.size", Integer.toString(256 * 1024));
        props.put("compression.type", "none");
        return new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** A consumer of every partition of {@code topic} from its start (no group), with {@code extra} client properties. */
    KafkaConsumer<byte[], byte[]> consumerFromStart(String topic, Map<String, String> extra) {
        Properties props = kafka.clientProperties();
        props.putAll(extra);
        KafkaConsumer<byte[], byte[]> c =
                new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        List<TopicPartition> parts = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            parts.add(new TopicPartition(topic, p));
        }
        c.assign(parts);
        c.seekToBeginning(parts);
        return c;
    }

    /** The record key of a packet, as the agent writes it; fills {@code scratch} with the packet. */
    static byte[] key(PacketEvent p, DecodedPacket scratch) {
        PacketEvents.fromAvro(p, scratch);
        return PacketEvents.flowKey(PacketEvents.vantagePoint(p.getVantage()), scratch)
                .getBytes(UTF_8);
    }

    /** {@code --batch} packets per batch at most; 0 or less: one PacketEvent per record. */
    int batchSize() {
        return intArg("batch");
    }

    long lingerNs() {
        return Long.parseLong(args.get("linger-ms")) * 1_000_000L;
    }

    String batching() {
        int batch = batchSize();
        return batch <= 0
                ? "PacketEvents"
                : "PacketBatches of <= " + batch + " packets, linger " + args.get("linger-ms") + " ms";
    }

    Map<String, String> jobOptions(String input, String run) {
        Map<String, String> o = new HashMap<>();
        o.put("bootstrap-servers", kafka.bootstrapServers());
        o.put("packets-topic", input);
        o.put("conntrack-input", "false");
        o.put("group-id", "bench-" + run);
        o.put("transactional-id-prefix", "bench-" + run);
        o.put("start-offsets", "earliest");
        o.put("transaction-timeout-ms", "600000");
        o.put("jdbc-url", postgres.jdbcUrl());
        o.put("jdbc-user", Postgres.USER);
        o.put("jdbc-password-env", "");
        o.put("checkpoint-dir", work.resolve("checkpoints-" + run).toUri().toString());
        o.put("restart-attempts", "0");
        for (String out : List.of(
                "flows", "tcp-events", "service-windows", "vantage-windows", "dead-letters", "conntrack-budgets")) {
            o.put(out + "-topic", "bench." + run + "." + out);
        }
        // --job-options name=value,...: job options for every run (an A/B of e.g. jdbc-own-thread=false);
        // the phases' own settings (bounded, parallelism, outputs) are put after this and win
        for (String kv : args.get("job-options").split(",")) {
            if (kv.contains("=")) {
                o.put(
                        kv.substring(0, kv.indexOf('=')).strip(),
                        kv.substring(kv.indexOf('=') + 1).strip());
            }
        }
        return o;
    }

    void createOutputs(Map<String, String> o) {
        // the flows topic stamps records with the broker's append time, so (2) can tell when each was written
        try (Admin admin = Admin.create(kafka.clientProperties())) {
            admin.createTopics(List.of(new NewTopic(o.get("flows-topic"), PARTITIONS, (short) 1)
                            .configs(Map.of("message.timestamp.type", "LogAppendTime"))))
                    .all()
                    .get();
        } catch (Exception e) {
            throw new IllegalStateException("cannot create " + o.get("flows-topic"), e);
        }
        createTopics(
                o.get("tcp-events-topic"),
                o.get("service-windows-topic"),
                o.get("vantage-windows-topic"),
                o.get("dead-letters-topic"),
                o.get("conntrack-budgets-topic"));
    }

    /**
     * The job of options {@code o} on a new environment, ready to execute: its output topics created,
     * the sink tables dropped and created again.
     */
    StreamExecutionEnvironment prepareJob(Map<String, String> o) {
        createOutputs(o);
        resetTables();
        JobConfig config = JobConfig.of(o);
        PostgresSinks.applySchema(config);
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(FlowtraceJob.flinkConfiguration(config));
        new FlowtraceJob(config, InputSources.packets(config), JobSinks.fromConfig(config)).build(env);
        return env;
    }

    void resetTables() {
        for (String t : List.of(
                "flow_summary",
                "tcp_events",
                "service_windows",
                "vantage_windows",
                "dead_letters",
                "conntrack_budgets",
                "flow_conntrack",
                "bench_writes")) {
            postgres.execute("DROP TABLE IF EXISTS " + t + " CASCADE");
        }
    }

    /** Flows per packet of the input (whole copies, so exact): a packets/s rate times this is flows/s. */
    double flowsPerPacket() {
        return flowsPerCopy / (double) packets.size();
    }

    /** {@link #stats} of packets/s rates, then the same in flows/s: "median N [...] packets/s = median M [...] flows/s". */
    String rates(List<Double> packetRates) {
        List<Double> flows = packetRates.stream().map(r -> r * flowsPerPacket()).toList();
        return stats(packetRates) + " packets/s = " + stats(flows) + " flows/s";
    }

    /** Keeps a median (packets/s) of this run for the closing {@link Targets} lines. */
    void remember(String name, double median) {
        medians.put(name, median);
    }

    /** The 1, 5 and 15 minute load averages ({@code uptime}'s), as printed on every result row. */
    static String load() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    static double median(List<Double> values) {
        List<Double> v = new ArrayList<>(values);
        Collections.sort(v);
        return v.size() % 2 == 1 ? v.get(v.size() / 2) : (v.get(v.size() / 2 - 1) + v.get(v.size() / 2)) / 2;
    }

    static String stats(List<Double> values) {
        List<Double> v = new ArrayList<>(values);
        Collections.sort(v);
        double median = median(v);
        return String.format(
                Locale.ROOT,
                "median %,.0f [min %,.0f, max %,.0f] over %d runs",
                median,
                v.get(0),
                v.get(v.size() - 1),
                v.size());
    }

    static void report(String format, Object... values) {
        System.out.println("JOBBENCH " + String.format(Locale.ROOT, format, values));
        System.out.flush();
    }
}
