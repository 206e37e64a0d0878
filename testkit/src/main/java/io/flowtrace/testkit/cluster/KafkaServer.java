package io.flowtrace.testkit.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A Kafka KRaft broker (combined broker and controller, one node) as its own process, from the
 * kafka_2.13 jars on {@code classpath}: {@code kafka.tools.StorageTool format}, then
 * {@code kafka.Kafka server.properties}, as Kafka's bin/kafka-storage.sh and bin/kafka-server-start.sh
 * do. Listens on 127.0.0.1 only; {@link #stop()} and {@link #start()} again restart it on the same port
 * with the same log directory (a broker restart), {@link #kill()} is {@code kill -9}.
 */
public final class KafkaServer implements AutoCloseable {
    private final Path home;
    private final String classpath;
    private final int port;
    private final int controllerPort;
    private JavaProcess process;
    private int starts;

    public KafkaServer(Path home, String classpath) throws IOException {
        this.home = home.toAbsolutePath();
        this.classpath = classpath;
        this.port = Ports.free();
        this.controllerPort = Ports.free();
        Files.createDirectories(this.home);
        Files.writeString(
                this.home.resolve("server.properties"),
                String.join(
                        "\n",
                        "process.roles=broker,controller",
                        "node.id=1",
                        "controller.quorum.voters=1@127.0.0.1:" + controllerPort,
                        "listeners=PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort,
                        "advertised.listeners=PLAINTEXT://127.0.0.1:" + port,
                        "controller.listener.names=CONTROLLER",
                        "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                        "inter.broker.listener.name=PLAINTEXT",
                        "log.dirs=" + this.home.resolve("data"),
                        // One broker: every internal topic with one replica, or offset commits and
                        // transactions fail (docs/build.md).
                        "offsets.topic.replication.factor=1",
                        "offsets.topic.num.partitions=1",
                        "transaction.state.log.replication.factor=1",
                        "transaction.state.log.min.isr=1",
                        "transaction.state.log.num.partitions=1",
                        "group.initial.rebalance.delay.ms=0",
                        "auto.create.topics.enable=false",
                        ""));
    }

    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    /** Formats the log directory on the first start, then starts the broker; returns when it answers. */
    public void start() throws IOException, InterruptedException {
        Path config = home.resolve("server.properties");
        List<String> jvm =
                List.of("-Xmx512m", "-Dlog4j2.configurationFile=" + writeLog4j().toUri());
        if (!Files.exists(home.resolve("data/meta.properties"))) {
            List<String> format = new ArrayList<>(List.of(JavaProcess.javaBinary()));
            format.addAll(jvm);
            format.addAll(List.of(
                    "-cp",
                    classpath,
                    "kafka.tools.StorageTool",
                    "format",
                    "-t",
                    UUID.randomUUID().toString().replace("-", "").substring(0, 22),
                    "-c",
                    config.toString()));
            // A cluster id is 16 bytes in URL-safe base64 (22 characters); any such string works.
            int exit = JavaProcess.run(
                    "kafka-storage format", format, Map.of(), home.resolve("format.log"), Duration.ofMinutes(2));
            if (exit != 0) {
                throw new IllegalStateException("kafka-storage format failed; see " + home.resolve("format.log"));
            }
        }
        process = JavaProcess.start(
                "kafka-broker",
                jvm,
                classpath,
                "kafka.Kafka",
                List.of(config.toString()),
                Map.of(),
                home.resolve("broker-" + (++starts) + ".log"));
        FlinkCluster.await("the Kafka broker at " + bootstrapServers(), Duration.ofMinutes(5), () -> {
            if (!process.isAlive()) {
                throw new IllegalStateException("the broker exited; see " + process.log());
            }
            try (Admin admin = admin()) {
                admin.describeCluster().nodes().get(5, TimeUnit.SECONDS);
                return true;
            }
        });
    }

    private Path writeLog4j() throws IOException {
        Path file = home.resolve("log4j2.properties");
        Files.writeString(file, """
                rootLogger.level = WARN
                rootLogger.appenderRef.console.ref = console
                appender.console.type = Console
                appender.console.name = console
                appender.console.layout.type = PatternLayout
                appender.console.layout.pattern = %d{HH:mm:ss.SSS} %-5p %c{1} - %m%n
                logger.kafka.name = kafka.server.KafkaRaftServer
                logger.kafka.level = INFO
                """);
        return file;
    }

    public Admin admin() {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "20000");
        return Admin.create(p);
    }

    /**
     * Creates the topics that do not exist yet (a broker started again on its log directory, as the
     * next {@code cluster up} after {@code down}, keeps its topics; creating them again failed that
     * start with TopicExistsException).
     */
    public void createTopics(int partitions, String... names) throws Exception {
        try (Admin admin = admin()) {
            java.util.Set<String> existing = admin.listTopics().names().get(1, TimeUnit.MINUTES);
            List<NewTopic> topics = new ArrayList<>();
            for (String n : names) {
                if (!existing.contains(n)) {
                    topics.add(new NewTopic(n, partitions, (short) 1));
                }
            }
            admin.createTopics(topics).all().get(1, TimeUnit.MINUTES);
        }
    }

    /** A producer of raw records (acks=all, idempotent), as the agents configure theirs. */
    public KafkaProducer<byte[], byte[]> newProducer() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /**
     * Every committed record of the topic (isolation.level=read_committed, from the beginning up to
     * each partition's last stable offset), in partition then offset order.
     */
    public List<ConsumerRecord<byte[], byte[]>> readCommitted(String topic) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>();
            consumer.partitionsFor(topic, Duration.ofSeconds(30))
                    .forEach(i -> partitions.add(new TopicPartition(topic, i.partition())));
            partitions.sort(Comparator.comparingInt(TopicPartition::partition));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions); // read_committed: the last stable offsets
            List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("could not read " + topic + " to its end offsets " + end);
                }
                consumer.poll(Duration.ofMillis(500)).forEach(out::add);
            }
            out.sort(Comparator.<ConsumerRecord<byte[], byte[]>>comparingInt(ConsumerRecord::partition)
                    .thenComparingLong(ConsumerRecord::offset));
            return out;
        }
    }

    /** True when the consumer group has committed the end offset of every partition of {@code topic}. */
    public boolean consumedToEnd(String group, String topic) throws Exception {
        try (Admin admin = admin()) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata()
                    .get(30, TimeUnit.SECONDS);
            Map<TopicPartition, OffsetSpec> latest = new java.util.HashMap<>();
            admin.describeTopics(List.of(topic))
                    .allTopicNames()
                    .get(30, TimeUnit.SECONDS)
                    .get(topic)
                    .partitions()
                    .forEach(i -> latest.put(new TopicPartition(topic, i.partition()), OffsetSpec.latest()));
            var ends = admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS);
            for (var e : ends.entrySet()) {
                OffsetAndMetadata c = committed.get(e.getKey());
                if (e.getValue().offset() > 0
                        && (c == null || c.offset() < e.getValue().offset())) {
                    return false;
                }
            }
            return true;
        }
    }

    public boolean isRunning() {
        return process != null && process.isAlive();
    }

    public JavaProcess process() {
        return process;
    }

    /** A clean broker shutdown (SIGTERM, as bin/kafka-server-stop.sh). */
    public void stop() throws InterruptedException {
        if (process != null) {
            process.stop(Duration.ofSeconds(60));
        }
    }

    public void kill() throws InterruptedException {
        if (process != null) {
            process.kill();
        }
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }
}
