package io.flowtrace.bench.job;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.flowtrace.avro.FlowRecord;
import io.flowtrace.avro.PacketBatch;
import io.flowtrace.avro.PacketEvent;
import io.flowtrace.avro.Vantage;
import io.flowtrace.avro.mapping.PacketBatches;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.bench.Packets;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.jobs.FlowtraceJob;
import io.flowtrace.jobs.JobConfig;
import io.flowtrace.jobs.sink.JobSinks;
import io.flowtrace.jobs.sink.PostgresSinks;
import io.flowtrace.jobs.source.InputSources;
import io.flowtrace.testkit.KafkaBroker;
import io.flowtrace.testkit.Postgres;
import java.io.IOException;
import java.io.UncheckedIOException;
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
import java.util.stream.Stream;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.message.BinaryMessageDecoder;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The job benchmark (docs/BENCHMARKS.md "## Job"), all in one JVM: testkit's
 * in-process KRaft broker and embedded PostgreSQL, the job on a local MiniCluster per run.
 *
 * <ol>
 *   <li>(0) optionally, {@code flowtrace analyze --json} on the same capture replicated the same way;
 *   <li>fill a topic with N packets (rounded up to whole copies) of a real capture replicated with
 *       shifted addresses and times, as per-flow PacketBatches ({@code --batch} packets at most,
 *       {@code --linger-ms} of capture time, flushed at FIN/RST; {@code --batch 0}: PacketEvents);
 *   <li>(1) plain KafkaConsumer from the beginning + Avro decode of every record and packet;
 *   <li>(2) the whole job (bounded) on the same topic to PostgreSQL and exactly-once Kafka, parallelism 1
 *       and 2: wall time, and the steady rate over the middle 80 % of the input ({@link #steadyRate});
 *   <li>(3) event → PostgreSQL latency at a paced input rate (see {@link #latency});
 *   <li>(4) state bytes per idle flow, heap and RocksDB (savepoint size / live flows).
 * </ol>
 * Every measurement is repeated and reported as median [min, max].
 *
 * <p>Usage: {@code bench/job-bench.sh [--packets N] [--runs R] [--rate PPS] [--latency-seconds S]
 * [--latency-runs R] [--idle-copies C] [--parallelism 1,2] [--capture testdata/...] [--batch 512] [--linger-ms 20]
 * [--outputs all|kafka|postgres] [--analyze-command ./flowtrace]}; phases
 * {@code analyze,consume,job,latency,state} ({@code analyze} is not in the default list)
 */
public final class JobBench {
    private static final Vantage VANTAGE = new Vantage("bench", "eth0");
    private static final int PARTITIONS = 2;
    private final Map<String, String> args;
    private final KafkaBroker kafka = new KafkaBroker();
    private final Postgres postgres = new Postgres();
    private final Path work;
    private BenchPackets packets;
    private int topicSeq;
    /** Flows per copy of the capture, as the offline analysis counts them (instances included). */
    private long flowsPerCopy;
    /** Capture times (ns) of the packets at 10 % and 90 % of the filled input. */
    private long time10Ns;

    private long time90Ns;

    private JobBench(Map<String, String> args) throws IOException {
        this.args = args;
        this.work = Files.createTempDirectory("flowtrace-job-bench");
    }

    public static void main(String[] argv) throws Exception {
        Map<String, String> a = new LinkedHashMap<>();
        a.put("packets", "1000000");
        a.put("runs", "5");
        a.put("rate", "100000");
        a.put("latency-seconds", "20");
        a.put("latency-runs", "3");
        a.put("idle-copies", "10000");
        a.put("parallelism", "1,2");
        a.put("capture", "join/client.pcap");
        a.put("phases", "consume,job,latency,state");
        a.put("checkpoint-interval-ms", "2000");
        a.put("batch", "512");
        a.put("linger-ms", "20");
        a.put("outputs", "all");
        a.put("analyze-command", "./flowtrace");
        for (int i = 0; i < argv.length; i += 2) {
            if (!argv[i].startsWith("--") || i + 1 >= argv.length || !a.containsKey(argv[i].substring(2))) {
                System.err.println("usage: JobBench "
                        + a.keySet().stream()
                                .map(k -> "[--" + k + " " + a.get(k) + "]")
                                .reduce((x, y) -> x + " " + y)
                                .orElse(""));
                System.exit(2);
            }
            a.put(argv[i].substring(2), argv[i + 1]);
        }
        new JobBench(a).run();
        System.exit(0); // MiniCluster and client threads are not all daemons
    }

    private void run() throws Exception {
        kafka.start();
        postgres.start();
        try {
            packets = new BenchPackets(Packets.testdata(args.get("capture")), VANTAGE);
            report(
                    "machine: %s, %d cores, Java %s, max heap %d MiB; options %s",
                    System.getProperty("os.name") + " " + System.getProperty("os.version"),
                    Runtime.getRuntime().availableProcessors(),
                    System.getProperty("java.version"),
                    Runtime.getRuntime().maxMemory() >> 20,
                    args);
            flowsPerCopy = packets.offlineFlows();
            report(
                    "capture %s: %d TCP packets and %d flows per copy",
                    args.get("capture"), packets.size(), flowsPerCopy);
            List<String> phases = List.of(args.get("phases").split(","));
            long n = Long.parseLong(args.get("packets"));
            n = (n + packets.size() - 1) / packets.size() * packets.size(); // whole copies: the flow count is exact
            int runs = Integer.parseInt(args.get("runs"));
            String topic = null;
            if (phases.contains("consume") || phases.contains("job")) {
                topic = newTopic("bench.packets");
                long t0 = System.nanoTime();
                long records = fill(topic, n);
                report(
                        "filled %s with %,d packets in %,d records (%s; %,d copies, times shifted per copy) in %.1f s",
                        topic, n, records, batching(), n / packets.size(), (System.nanoTime() - t0) / 1e9);
            }
            if (phases.contains("analyze")) {
                analyzePhase(n, runs);
            }
            if (phases.contains("consume")) {
                List<Double> rates = new ArrayList<>();
                for (int r = 0; r < runs; r++) {
                    rates.add(consume(topic, n));
                }
                report("(1) consume + Avro decode (%s): %s packets/s", batching(), stats(rates));
            }
            if (phases.contains("job")) {
                for (String p : args.get("parallelism").split(",")) {
                    List<Double> rates = new ArrayList<>();
                    List<Double> steady = new ArrayList<>();
                    for (int r = 0; r < runs; r++) {
                        double[] rate = jobThroughput(topic, n, Integer.parseInt(p));
                        rates.add(rate[0]);
                        steady.add(rate[1]);
                    }
                    String outputs = switch (args.get("outputs")) {
                        case "kafka" -> "Kafka only";
                        case "postgres" -> "PostgreSQL only";
                        default -> "PostgreSQL + Kafka";
                    };
                    report(
                            "(2) job to %s (%s), parallelism %s: %s packets/s (wall time of the bounded job, startup included), steady %s packets/s",
                            outputs, batching(), p, stats(rates), stats(steady));
                }
            }
            if (phases.contains("latency")) {
                int rate = Integer.parseInt(args.get("rate"));
                int seconds = Integer.parseInt(args.get("latency-seconds"));
                List<Double> p50 = new ArrayList<>();
                List<Double> p99 = new ArrayList<>();
                List<Double> max = new ArrayList<>();
                for (int r = 0; r < Integer.parseInt(args.get("latency-runs")); r++) {
                    double[] l = latency(rate, seconds);
                    p50.add(l[0]);
                    p99.add(l[1]);
                    max.add(l[2]);
                }
                report(
                        "(3) event -> PostgreSQL latency at %,d packets/s offered (%s, linger on the wall clock), ms: "
                                + "p50 %s, p99 %s, max %s",
                        rate, batching(), stats(p50), stats(p99), stats(max));
            }
            if (phases.contains("state")) {
                int copies = Integer.parseInt(args.get("idle-copies"));
                for (String backend : List.of("hashmap", "rocksdb")) {
                    stateSize(backend, copies);
                }
            }
        } finally {
            postgres.close();
            kafka.close();
        }
    }

    // ---------------------------------------------------------------- (0) flowtrace analyze

    /**
     * (0) {@code flowtrace analyze --json} as a whole process (JVM start included) on the same
     * capture replicated to the same number of copies ({@link io.flowtrace.bench.ScaleUp}: its
     * copies shift other address octets, so the flows differ in address only); packets/s counts
     * the TCP packets, as the job's rates do. One run first to warm the launcher's class-data
     * archive, not reported.
     */
    private void analyzePhase(long n, int runs) throws Exception {
        long copies = n / packets.size();
        Path pcap = work.resolve("analyze-input.pcap");
        io.flowtrace.bench.ScaleUp.main(
                new String[] {Packets.testdata(args.get("capture")).toString(), pcap.toString(), Long.toString(copies)
                });
        try {
            analyzeSeconds(pcap);
            List<Double> rates = new ArrayList<>();
            for (int r = 0; r < runs; r++) {
                double seconds = analyzeSeconds(pcap);
                report("  analyze run: %.2f s, %.0f packets/s", seconds, n / seconds);
                rates.add(n / seconds);
            }
            report(
                    "(0) flowtrace analyze --json, whole process, %,d copies = %,d TCP packets, %,d bytes: %s packets/s",
                    copies, n, Files.size(pcap), stats(rates));
        } finally {
            Files.deleteIfExists(pcap);
        }
    }

    private double analyzeSeconds(Path pcap) throws IOException, InterruptedException {
        List<String> command =
                new ArrayList<>(List.of(args.get("analyze-command").split(" ")));
        command.addAll(List.of("analyze", "-q", "--json", pcap.toString()));
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder(command)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        int exit = p.waitFor();
        double seconds = (System.nanoTime() - t0) / 1e9;
        if (exit != 0) {
            throw new IllegalStateException(command + " exited with " + exit);
        }
        return seconds;
    }

    // ---------------------------------------------------------------- fill and (1)

    private String newTopic(String prefix) {
        String t = prefix + "." + (++topicSeq);
        createTopics(t);
        return t;
    }

    /**
     * testkit's createTopics, tolerating its wait for leaders failing with UNKNOWN_TOPIC_OR_PARTITION
     * (topic metadata not yet visible to describeTopics on a loaded machine): then this waits itself.
     */
    private void createTopics(String... names) {
        try {
            kafka.createTopics(PARTITIONS, names);
            return;
        } catch (IllegalStateException e) {
            if (!(e.getCause() instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException)) {
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

    private KafkaProducer<byte[], byte[]> producer() {
        return producer(1);
    }

    /** Idempotent; one request in flight for brand-new topics (their leaders are still moving), more once leaders are settled. */
    private KafkaProducer<byte[], byte[]> producer(int inFlight) {
        Properties props = kafka.clientProperties();
        props.put("acks", "all");
        props.put("enable.idempotence", "true");
        props.put("max.in.flight.requests.per.connection", Integer.toString(inFlight));
        props.put("linger.ms", "5");
        props.put("batch.size", Integer.toString(256 * 1024));
        props.put("compression.type", "none");
        return new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static byte[] key(PacketEvent p, DecodedPacket scratch) {
        PacketEvents.fromAvro(p, scratch);
        return PacketEvents.flowKey(PacketEvents.vantagePoint(p.getVantage()), scratch)
                .getBytes(UTF_8);
    }

    private String batching() {
        int batch = Integer.parseInt(args.get("batch"));
        return batch <= 0
                ? "PacketEvents"
                : "PacketBatches of <= " + batch + " packets, linger " + args.get("linger-ms") + " ms";
    }

    /**
     * Publishes packets 0..n-1 of the replication; returns the records written. With batching, each
     * flow's packets are collected as an agent does (at most {@code --batch}, flushed when a later
     * packet of the input is {@code --linger-ms} of capture time after the batch's first, at FIN/RST
     * and at the end), so every flow's batches are in order and keyed like its packets.
     */
    private long fill(String topic, long n) throws IOException {
        int batch = Integer.parseInt(args.get("batch"));
        long lingerNs = Long.parseLong(args.get("linger-ms")) * 1_000_000L;
        time10Ns = packets.get(n / 10, true).getCaptureTimeNs();
        time90Ns = packets.get(n * 9 / 10, true).getCaptureTimeNs();
        DecodedPacket scratch = new DecodedPacket();
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            if (batch <= 0) {
                for (long i = 0; i < n; i++) {
                    PacketEvent p = packets.get(i, true);
                    producer.send(new ProducerRecord<>(
                            topic, key(p, scratch), p.toByteBuffer().array()));
                }
                producer.flush();
                return n;
            }
            Batches batches = new Batches(producer, topic, batch, lingerNs);
            for (long i = 0; i < n; i++) {
                PacketEvent p = packets.get(i, true);
                batches.add(p, scratch, p.getCaptureTimeNs());
            }
            batches.flushAll();
            producer.flush();
            return batches.records;
        }
    }

    /**
     * Per-flow PacketBatches as the agent makes them: at most {@code max} packets, sent at FIN/RST
     * and once the linger clock ({@code now}: capture time for a file, the wall clock for a live
     * capture) is {@code lingerNs} past the batch's first packet, and at the end.
     */
    private static final class Batches {
        private final KafkaProducer<byte[], byte[]> producer;
        private final String topic;
        private final int max;
        private final long lingerNs;
        /** Open batches in opening order: the linger check looks at the oldest only. */
        private final LinkedHashMap<String, OpenBatch> open = new LinkedHashMap<>();

        long records;

        Batches(KafkaProducer<byte[], byte[]> producer, String topic, int max, long lingerNs) {
            this.producer = producer;
            this.topic = topic;
            this.max = max;
            this.lingerNs = lingerNs;
        }

        /** Sends what {@code now} expires, then adds {@code p} ({@code scratch} is overwritten). */
        void add(PacketEvent p, DecodedPacket scratch, long now) throws IOException {
            expire(now);
            byte[] keyBytes = key(p, scratch); // also fills scratch
            String key = new String(keyBytes, UTF_8);
            OpenBatch b = open.get(key);
            if (b == null) {
                b = new OpenBatch(new PacketBatches.Builder(VANTAGE), now);
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
    }

    private record OpenBatch(PacketBatches.Builder builder, long firstNs) {}

    /**
     * (1) A plain consumer from the beginning, every record decoded as the job's flow function
     * decodes it (Avro with a reused record and decoder, then every packet into a DecodedPacket);
     * packets/s.
     */
    private double consume(String topic, long n) throws IOException {
        Properties props = kafka.clientProperties();
        props.put("max.poll.records", "5000");
        props.put("fetch.max.bytes", Integer.toString(64 << 20));
        props.put("max.partition.fetch.bytes", Integer.toString(16 << 20));
        BinaryMessageDecoder<PacketEvent> decoder = PacketEvent.getDecoder();
        SpecificDatumReader<PacketBatch> batchReader = new SpecificDatumReader<>(PacketBatch.class);
        BinaryDecoder binary = null;
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
            for (int p = 0; p < PARTITIONS; p++) {
                parts.add(new TopicPartition(topic, p));
            }
            c.assign(parts);
            c.seekToBeginning(parts);
            while (count < n) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
                    byte[] v = r.value();
                    records++;
                    if (PacketBatches.fingerprintOf(v) == PacketBatches.FINGERPRINT) {
                        binary = DecoderFactory.get().binaryDecoder(v, 10, v.length - 10, binary);
                        batch = batchReader.read(batch, binary);
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

    // ---------------------------------------------------------------- (2)

    private Map<String, String> jobOptions(String input, String run) {
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
        return o;
    }

    private void createOutputs(Map<String, String> o) {
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

    private void resetTables() {
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

    /**
     * (2) The bounded job over the whole topic: {wall-time rate (MiniCluster start, deployment and
     * the final checkpoint included), steady rate ({@link #steadyRate})} in packets/s.
     */
    private double[] jobThroughput(String topic, long n, int parallelism) throws Exception {
        String run = "job-p" + parallelism + "-" + (++topicSeq);
        Map<String, String> o = jobOptions(topic, run);
        o.put("bounded", "true");
        // A bounded job ends with a final checkpoint (Kafka transactions commit on checkpoints): a short
        // interval keeps that wait from dominating the wall time.
        o.put("checkpoint-interval-ms", args.get("checkpoint-interval-ms"));
        o.put("parallelism", Integer.toString(parallelism));
        o.put("state-backend", "hashmap");
        // --outputs all|kafka|postgres: what the sink side costs (the steady rate needs the Kafka flows topic)
        String outputs = args.get("outputs");
        o.put("kafka-output", Boolean.toString(!outputs.equals("postgres")));
        o.put("postgres-output", Boolean.toString(!outputs.equals("kafka")));
        createOutputs(o);
        resetTables();
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
                : (Long) postgres.query("SELECT count(*) AS n FROM flow_summary")
                        .get(0)
                        .get("n");
        long expectedFlows = flowsPerCopy * (n / packets.size());
        double steady = outputs.equals("postgres") ? Double.NaN : steadyRate(o.get("flows-topic"), n);
        report(
                "  job run p=%d: %.1f s, %.0f packets/s, steady %.0f packets/s, %,d flow rows (expected %,d)",
                parallelism, seconds, n / seconds, steady, flows, expectedFlows);
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
    private double steadyRate(String flowsTopic, long n) {
        Properties props = kafka.clientProperties();
        props.put("isolation.level", "read_committed");
        props.put("max.poll.records", "5000");
        long t10 = Long.MAX_VALUE;
        long t90 = Long.MAX_VALUE;
        long us10 = time10Ns / 1000;
        long us90 = time90Ns / 1000;
        BinaryMessageDecoder<FlowRecord> decoder = FlowRecord.getDecoder();
        FlowRecord reuse = new FlowRecord();
        try (KafkaConsumer<byte[], byte[]> c =
                new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> parts = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
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
        return 0.8 * n / ((t90 - t10) / 1000.0);
    }

    // ---------------------------------------------------------------- (3)

    /**
     * (3) The job runs (unbounded, parallelism 2, heap) on an empty topic; a producer thread then
     * publishes the replicated capture at {@code rate} packets/s for {@code seconds}, each packet's
     * capture time set to the wall-clock time just before it is handed to the producer, batched per
     * flow as a live agent does ({@code --batch}, {@code --linger-ms} on the wall clock, flushed at
     * FIN/RST; {@code --batch 0}: PacketEvents). A trigger on
     * flow_summary logs clock_timestamp() of every row write (inside the JDBC batch's statement). A
     * flow's latency is: first write whose end_state is fin or rst minus that row's last_seen (the
     * capture = publish time of the packet that closed the flow: the job writes that version as
     * soon as it sees the packet). It covers producer batching, broker, source, the job, and the
     * JDBC batch interval (1000 ms default, kept).
     */
    private double[] latency(int rate, int seconds) throws Exception {
        String topic = newTopic("bench.latency");
        String run = "latency-" + topicSeq;
        Map<String, String> o = jobOptions(topic, run);
        o.put("bounded", "false");
        o.put("parallelism", "2");
        o.put("state-backend", "hashmap");
        o.put("checkpoint-interval-ms", "10000");
        createOutputs(o);
        resetTables();
        JobConfig config = JobConfig.of(o);
        PostgresSinks.applySchema(config);
        postgres.execute("""
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
        JobClient job = env.executeAsync("bench-" + run);
        Thread.sleep(8000); // job deployed, sources polling
        long total = (long) rate * seconds;
        long intervalNs = 1_000_000_000L / rate;
        DecodedPacket scratch = new DecodedPacket();
        long wallOffsetNs = System.currentTimeMillis() * 1_000_000L - System.nanoTime();
        long t0 = System.nanoTime();
        long behindMax = 0;
        int batch = Integer.parseInt(args.get("batch"));
        try (KafkaProducer<byte[], byte[]> producer = producer(5)) { // the topic is 8 s old: leaders settled
            // as a live agent batches: per flow, the linger on the wall clock (here System.nanoTime)
            Batches batches = batch <= 0
                    ? null
                    : new Batches(producer, topic, batch, Long.parseLong(args.get("linger-ms")) * 1_000_000L);
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
                PacketEvent p = packets.get(i, false);
                p.setCaptureTimeNs(now + wallOffsetNs);
                if (batches != null) {
                    batches.add(p, scratch, now);
                } else {
                    producer.send(new ProducerRecord<>(
                            topic, key(p, scratch), p.toByteBuffer().array()));
                }
            }
            if (batches != null) {
                batches.flushAll();
            }
            producer.flush();
        }
        double sent = (System.nanoTime() - t0) / 1e9;
        Thread.sleep(10_000);
        job.cancel().get();
        Map<String, Object> r = postgres.query("""
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
                total, sent, total / sent, behindMax / 1e6, r.get("n"), p50, p99, max);
        return new double[] {p50, p99, max};
    }

    // ---------------------------------------------------------------- (4)

    /**
     * (4) Idle flows: the first 6 packets of every connection (handshake and the first data, no
     * FIN/RST), {@code copies} copies with the same capture times (so no flow reaches its idle or
     * update timer), into the unbounded job; once the consumer group has committed every offset,
     * a savepoint: its bytes on disk divided by the number of live flows. Canonical format for both
     * backends, RocksDB's native format too.
     */
    private void stateSize(String backend, int copies) throws Exception {
        List<PacketEvent> idle = new ArrayList<>();
        Map<String, Integer> perFlow = new HashMap<>();
        DecodedPacket scratch = new DecodedPacket();
        for (PacketEvent p : packets.base()) {
            String k = new String(key(p, scratch), UTF_8);
            if ((p.getTcpFlags() & (DecodedPacket.FIN | DecodedPacket.RST)) == 0
                    && perFlow.merge(k, 1, Integer::sum) <= 6) {
                idle.add(p);
            }
        }
        int flowsPerCopy = perFlow.size();
        String topic = newTopic("bench.idle");
        long published = 0;
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (int c = 0; c < copies; c++) {
                for (PacketEvent p : idle) {
                    PacketEvent q = packets.copy(p, c, false);
                    producer.send(new ProducerRecord<>(
                            topic, key(q, scratch), q.toByteBuffer().array()));
                    published++;
                }
            }
            producer.flush();
        }
        long flows = (long) flowsPerCopy * copies;
        String run = "state-" + backend + "-" + topicSeq;
        Map<String, String> o = jobOptions(topic, run);
        o.put("bounded", "false");
        o.put("parallelism", "2");
        o.put("state-backend", backend);
        o.put("checkpoint-interval-ms", "2000");
        o.put("postgres-output", "false");
        o.put("kafka-output", "false");
        JobConfig config = JobConfig.of(o);
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(FlowtraceJob.flinkConfiguration(config));
        new FlowtraceJob(
                        config,
                        InputSources.packets(config),
                        new JobSinks(List.of(), List.of(), List.of(), List.of(), List.of()))
                .build(env);
        JobClient job = env.executeAsync("bench-" + run);
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

    private void waitForCommitted(String topic, String group, long total) throws Exception {
        try (Admin admin = Admin.create(kafka.clientProperties())) {
            long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
            while (System.nanoTime() < deadline) {
                Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                        .partitionsToOffsetAndMetadata()
                        .get();
                long sum = committed.values().stream()
                        .filter(m -> m != null)
                        .mapToLong(OffsetAndMetadata::offset)
                        .sum();
                if (sum >= total) {
                    return;
                }
                Thread.sleep(1000);
            }
        }
        throw new IllegalStateException("the job did not consume " + total + " records of " + topic + " within 10 min");
    }

    private long savepointBytes(JobClient job, SavepointFormatType format, String run) throws Exception {
        Path dir = work.resolve("savepoints-" + run + "-" + format.name().toLowerCase(Locale.ROOT));
        String path = job.triggerSavepoint(dir.toUri().toString(), format).get();
        try (Stream<Path> files =
                Files.walk(Path.of(java.net.URI.create(path.startsWith("file:") ? path : "file://" + path)))) {
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

    // ---------------------------------------------------------------- reporting

    private static String stats(List<Double> values) {
        List<Double> v = new ArrayList<>(values);
        Collections.sort(v);
        double median = v.size() % 2 == 1 ? v.get(v.size() / 2) : (v.get(v.size() / 2 - 1) + v.get(v.size() / 2)) / 2;
        return String.format(
                Locale.ROOT,
                "median %,.0f [min %,.0f, max %,.0f] over %d runs",
                median,
                v.get(0),
                v.get(v.size() - 1),
                v.size());
    }

    private static void report(String format, Object... values) {
        System.out.println("JOBBENCH " + String.format(Locale.ROOT, format, values));
        System.out.flush();
    }
}
