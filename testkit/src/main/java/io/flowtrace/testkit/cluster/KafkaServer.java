package io.flowtrace.testkit.cluster;

import io.flowtrace.testkit.ListeningSockets;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import kafka.tools.StorageTool;
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
 * do. Listens on 127.0.0.1 only, and takes no unauthenticated client, because every local user reaches
 * 127.0.0.1:
 *
 * <ul>
 *   <li>the client listener (also the inter-broker one) takes only {@code SASL_SSL} with
 *       SCRAM-SHA-512: users {@value #USER} (the job, the agents, this harness) and {@code broker} (the
 *       broker's own inter-broker login), each with a random password per run, added when the log
 *       directory is formatted;
 *   <li>the KRaft controller listener takes only TLS with a client certificate
 *       ({@code ssl.client.auth=required}): SCRAM is not available to controllers (their credentials
 *       live in the metadata the controller serves), so it is closed to other users by mutual TLS
 *       instead, and only the broker (which holds the key) talks to it.
 * </ul>
 *
 * <p>The key pair (TLS of both listeners) is made once per run by {@link io.flowtrace.testkit.FlinkTls} (one keytool run) in
 * the user's private 0700 directory; clients trust its certificate as a PEM file
 * ({@code ssl.truststore.type=PEM}), so they never get the key. The client properties are written to
 * two 0600 files in the same directory: {@link #clientConfigFile()} for an agent's
 * {@code --kafka-config}, {@link #jobConfigFile()} for the job's {@code --config} ({@code kafka.*}
 * pass-through), so no password is on a command line.
 *
 * <p>Ports: the client listener binds port 0 on the first start and the port is read back from the
 * kernel ({@link ListeningSockets#ofProcess}); later starts (a broker restart) bind that same port, since
 * the clients were given it. The controller port cannot be 0: {@code controller.quorum.voters} names it
 * before the process exists, so it is picked free and bound a moment later ({@link Ports}). A process
 * of another user that takes either port first cannot pass for the broker: it lacks the key that the
 * clients' PEM trust store and the broker's controller client check, and SCRAM never sends the password.
 * {@link #stop()} and {@link #start()} again restart it on the same port with the same log directory
 * (a broker restart), {@link #kill()} is {@code kill -9}.
 */
public final class KafkaServer implements AutoCloseable {
    /** The SCRAM user of every client: the job, the agents and this harness. */
    public static final String USER = "flowtrace";

    private final Path home;
    private final String classpath;
    private final int controllerPort;
    private final KafkaCredentials credentials;
    private int port;
    private JavaProcess process;
    private int starts;

    /**
     * A broker in {@code home} (server.properties, logs, data); a log directory left by an earlier run
     * is deleted: its SCRAM users hold that run's passwords.
     */
    public KafkaServer(Path home, String classpath) throws IOException {
        this.home = home.toAbsolutePath();
        this.classpath = classpath;
        Files.createDirectories(this.home);
        Files.setPosixFilePermissions(this.home, PosixFilePermissions.fromString("rwx------"));
        deleteTree(this.home.resolve("data"));
        // Cannot be 0: controller.quorum.voters names it before the broker runs (class comment).
        this.controllerPort = Ports.free();
        this.credentials = KafkaCredentials.create();
        writeServerProperties();
    }

    /** server.properties (0600: it holds the store password and the broker's SCRAM password). */
    private void writeServerProperties() throws IOException {
        List<String> lines = new ArrayList<>(List.of(
                "process.roles=broker,controller",
                "node.id=1",
                "controller.quorum.voters=1@127.0.0.1:" + controllerPort,
                "listeners=SASL_SSL://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort,
                "controller.listener.names=CONTROLLER",
                "log.dirs=" + this.home.resolve("data"),
                // One broker: every internal topic with one replica, or offset commits and
                // transactions fail (docs/build.md).
                "offsets.topic.replication.factor=1",
                "offsets.topic.num.partitions=1",
                "transaction.state.log.replication.factor=1",
                "transaction.state.log.min.isr=1",
                "transaction.state.log.num.partitions=1",
                "group.initial.rebalance.delay.ms=0",
                "auto.create.topics.enable=false"));
        lines.addAll(credentials.serverProperties());
        String content = String.join("\n", lines) + "\n";
        Path file = home.resolve("server.properties");
        Files.deleteIfExists(file);
        Files.writeString(
                Files.createFile(
                        file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))),
                content);
    }

    /** 127.0.0.1 and the client listener's port (known once {@link #start()} returned). */
    public String bootstrapServers() {
        if (port == 0) {
            throw new IllegalStateException("the broker has not started: its port is not known yet");
        }
        return "127.0.0.1:" + port;
    }

    /** The broker's directory: server.properties (0600), logs, data. */
    public Path home() {
        return home;
    }

    /** The KRaft controller's port (TLS with a client certificate). */
    public int controllerPort() {
        return controllerPort;
    }

    /** The broker's certificate as PEM: what clients trust ({@code ssl.truststore.type=PEM}). */
    public Path certificate() {
        return credentials.certificate();
    }

    /**
     * What a client of user {@value #USER} sets: bootstrap servers, SASL_SSL, SCRAM-SHA-512 with the
     * run's password, the broker's certificate as the only trusted one.
     */
    public Properties clientProperties() {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrapServers());
        p.putAll(credentials.clientSecurity());
        return p;
    }

    /** {@link #clientProperties()} with another password: what a client that guessed would send. */
    public Properties clientPropertiesWithPassword(String password) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrapServers());
        p.putAll(credentials.clientSecurity(password));
        return p;
    }

    /** An agent's {@code --kafka-config}: {@link #clientProperties()} in a 0600 file of the private directory. */
    public Path clientConfigFile() {
        return credentials.clientConfigFile();
    }

    /**
     * The job's {@code --config}: {@code bootstrap-servers} and the security properties as
     * {@code kafka.*} pass-through options, in a 0600 file of the private directory.
     */
    public Path jobConfigFile() {
        return credentials.jobConfigFile();
    }

    /** Formats the log directory on the first start, then starts the broker; returns when it answers. */
    public void start() throws IOException, InterruptedException {
        Path config = home.resolve("server.properties");
        List<String> jvm =
                List.of("-Xmx512m", "-Dlog4j2.configurationFile=" + writeLog4j().toUri());
        if (!Files.exists(home.resolve("data/meta.properties"))) {
            format(config);
        }
        process = JavaProcess.start(
                "kafka-broker",
                jvm,
                classpath,
                "kafka.Kafka",
                List.of(config.toString()),
                Map.of(),
                home.resolve("broker-" + (++starts) + ".log"));
        if (port == 0) {
            port = boundClientPort();
            // a restart binds the same port: the clients were given it
            writeServerProperties();
            credentials.writeClientFiles(bootstrapServers());
        }
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

    /**
     * {@code kafka-storage format --add-scram ...} in this JVM ({@code StorageTool.execute}, what its
     * main runs), not in a child process: the SCRAM passwords are arguments, and a child's command line
     * is readable by every local user (/proc/PID/cmdline).
     */
    private void format(Path config) {
        // A cluster id is 16 bytes in URL-safe base64 (22 characters); any such string works.
        String clusterId = UUID.randomUUID().toString().replace("-", "").substring(0, 22);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int exit;
        try (PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8)) {
            List<String> args = new ArrayList<>(List.of("format", "-t", clusterId, "-c", config.toString()));
            args.addAll(credentials.formatArguments());
            exit = StorageTool.execute(args.toArray(String[]::new), print);
        }
        if (exit != 0) {
            throw new IllegalStateException("kafka-storage format failed (" + exit + "): " + out);
        }
    }

    /** The port the broker's client listener bound (the process's one listener other than the controller's). */
    private int boundClientPort() throws InterruptedException {
        int[] found = new int[1];
        FlinkCluster.await("the Kafka broker's client listener", Duration.ofMinutes(5), () -> {
            if (!process.isAlive()) {
                throw new IllegalStateException("the broker exited; see " + process.log());
            }
            for (ListeningSockets.Listener l : ListeningSockets.ofProcess(process.pid())) {
                if (l.port() != controllerPort && l.isLoopbackV4()) {
                    found[0] = l.port();
                    return true;
                }
            }
            return false;
        });
        return found[0];
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
        Properties p = clientProperties();
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
            Set<String> existing = admin.listTopics().names().get(1, TimeUnit.MINUTES);
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
        Properties p = clientProperties();
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /**
     * Every committed record of the topic (isolation.level=read_committed, from the beginning up to
     * each partition's last stable offset), in partition then offset order.
     */
    public List<ConsumerRecord<byte[], byte[]>> readCommitted(String topic) {
        Properties p = clientProperties();
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
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
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

    /** Stops the broker and deletes the run's key store, certificate and client files. */
    @Override
    public void close() throws InterruptedException {
        stop();
        try {
            credentials.delete();
        } catch (IOException e) {
            System.err.println("kafka: could not delete the run's key store or client files: " + e);
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(f);
            }
        }
    }
}
