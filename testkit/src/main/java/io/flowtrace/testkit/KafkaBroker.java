package io.flowtrace.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.apache.kafka.server.common.MetadataVersion;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real single-node KRaft Kafka (combined broker + controller) in the test JVM, from Kafka's own
 * KafkaClusterTestKit. Register it with {@code @RegisterExtension static final KafkaBroker KAFKA = new KafkaBroker();}
 * and create every topic, sink topics included, before a job uses it.
 */
public final class KafkaBroker implements BeforeAllCallback, AfterAllCallback {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaBroker.class);
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(30);

    private KafkaClusterTestKit cluster;
    private Admin admin;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        start();
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        close();
    }

    /** Starts the broker; beforeAll calls it, call it yourself only outside JUnit (e.g. a demo). */
    public void start() throws Exception {
        if (cluster != null) {
            return;
        }
        long started = System.nanoTime();
        TestKitNodes nodes = new TestKitNodes.Builder()
                .setCombined(true)
                .setNumBrokerNodes(1)
                .setNumControllerNodes(1)
                // The test kit defaults to the latest *testing* metadata version, which enables
                // unreleased features; a production broker runs the latest production version.
                .setBootstrapMetadataVersion(MetadataVersion.latestProduction())
                .build();
        KafkaClusterTestKit.Builder builder = new KafkaClusterTestKit.Builder(nodes);
        // Plaintext and unauthenticated: the broker and its controller listen on 127.0.0.1 only.
        LoopbackSocketFactoryManager.install(builder);
        // One broker cannot host the default replication factor 3 of the internal topics: without
        // these, offset commits on checkpoints and transactions stall. Values must be strings,
        // an Integer fails the config validation.
        brokerConfig().forEach(builder::setConfigProp);
        cluster = builder.build();
        cluster.format();
        cluster.startup();
        cluster.waitForReadyBrokers();
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers()));
        // The first group-coordinator lookup creates __consumer_offsets; do it now, so that a job's
        // first offset commit does not fail with CoordinatorNotAvailableException.
        admin.listConsumerGroupOffsets("flowtrace-warm-up")
                .partitionsToOffsetAndMetadata()
                .get();
        LOG.info("Kafka (KRaft) ready at {} in {} ms", bootstrapServers(), (System.nanoTime() - started) / 1_000_000);
    }

    public void close() throws Exception {
        if (admin != null) {
            admin.close(Duration.ofSeconds(5));
            admin = null;
        }
        if (cluster != null) {
            cluster.close();
            cluster = null;
        }
    }

    public String bootstrapServers() {
        requireStarted();
        return cluster.bootstrapServers();
    }

    /** Creates topics with the given partition count and replication factor 1; waits until they exist. */
    public void createTopics(int partitions, String... names) {
        requireStarted();
        List<NewTopic> topics = new ArrayList<>();
        for (String name : names) {
            topics.add(new NewTopic(name, partitions, (short) 1));
        }
        try {
            admin.createTopics(topics).all().get();
            awaitLeaders(List.of(names));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted creating topics " + List.of(names), e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot create topics " + List.of(names), e.getCause());
        }
    }

    /**
     * Topic creation returns before every partition has a leader; a producer that starts sending at
     * once sees NOT_LEADER and, with idempotence and several requests in flight, can end in
     * OUT_OF_ORDER_SEQUENCE. Wait until every partition reports a leader.
     */
    private void awaitLeaders(List<String> names) throws InterruptedException, ExecutionException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            boolean ready;
            try {
                ready = admin.describeTopics(names).allTopicNames().get().values().stream()
                        .allMatch(d -> d.partitions().stream()
                                .allMatch(p -> p.leader() != null && !p.leader().isEmpty()));
            } catch (ExecutionException e) {
                // the broker's metadata cache can lag the controller: a just-created topic is unknown for a moment
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                    throw e;
                }
                ready = false;
            }
            if (ready) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no leader for every partition of " + names + " after 30 s");
            }
            Thread.sleep(50);
        }
    }

    public void createTopic(String name, int partitions) {
        createTopics(partitions, name);
    }

    /** Client properties with bootstrap.servers set; add your own on top. */
    public Properties clientProperties() {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        return props;
    }

    /** An idempotent byte[] producer (acks=all); the caller closes it. */
    public KafkaProducer<byte[], byte[]> newProducer() {
        Properties props = clientProperties();
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        // one request in flight: tests care about order and exactly-once more than throughput
        props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        return new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /**
     * Every committed record of the topic, read with isolation.level=read_committed from the
     * beginning up to the last stable offset of each partition, in partition then offset order.
     * Records of aborted or still-open transactions are not returned.
     */
    public List<ConsumerRecord<byte[], byte[]>> readCommitted(String topic) {
        return readAll(topic, IsolationLevel.READ_COMMITTED);
    }

    /** Every record up to the high watermark, aborted transactional records included. */
    public List<ConsumerRecord<byte[], byte[]>> readUncommitted(String topic) {
        return readAll(topic, IsolationLevel.READ_UNCOMMITTED);
    }

    private List<ConsumerRecord<byte[], byte[]>> readAll(String topic, IsolationLevel isolation) {
        return readAll(clientProperties(), topic, isolation);
    }

    private static List<ConsumerRecord<byte[], byte[]>> readAll(
            Properties base, String topic, IsolationLevel isolation) {
        Properties props = new Properties();
        props.putAll(base);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation.toString());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, READ_TIMEOUT).stream()
                    .map(p -> new TopicPartition(topic, p.partition()))
                    .sorted((a, b) -> Integer.compare(a.partition(), b.partition()))
                    .collect(Collectors.toList());
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            // With read_committed, endOffsets is the last stable offset.
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, READ_TIMEOUT);
            List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
            long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
            while (!reached(consumer, end)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("timed out reading " + topic + " up to " + end);
                }
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
            records.sort((a, b) -> a.partition() != b.partition()
                    ? Integer.compare(a.partition(), b.partition())
                    : Long.compare(a.offset(), b.offset()));
            return records;
        }
    }

    private static boolean reached(KafkaConsumer<?, ?> consumer, Map<TopicPartition, Long> end) {
        Collection<TopicPartition> partitions = end.keySet();
        for (TopicPartition partition : partitions) {
            if (consumer.position(partition) < end.get(partition)) {
                return false;
            }
        }
        return true;
    }

    private static Map<String, String> brokerConfig() {
        return Map.of(
                "offsets.topic.replication.factor", "1",
                "offsets.topic.num.partitions", "1",
                "transaction.state.log.replication.factor", "1",
                "transaction.state.log.min.isr", "1",
                "transaction.state.log.num.partitions", "1",
                "group.initial.rebalance.delay.ms", "0");
    }

    private void requireStarted() {
        if (cluster == null) {
            throw new IllegalStateException(
                    "KafkaBroker not started: register it with @RegisterExtension on a static field");
        }
    }

    /**
     * A broker whose client listener speaks TLS with SASL/SCRAM-SHA-512 ({@code SASL_SSL}), for testing
     * the job's and the agents' security settings. The KRaft test kit computes its own listeners, so
     * this broker is Kafka's own {@code kafka.Kafka} in a child JVM (same jars as the test), formatted
     * with {@code kafka.tools.StorageTool --add-scram}. The certificate is made in the test with the
     * JDK's {@code keytool} (self-signed, CN and SAN localhost/127.0.0.1, PKCS12); the truststore holds
     * it. A second, plaintext listener serves only inter-broker traffic and is not given to clients.
     * Register with {@code @RegisterExtension static final KafkaBroker.Secured KAFKA = new KafkaBroker.Secured();}.
     */
    public static final class Secured implements BeforeAllCallback, AfterAllCallback {
        public static final String USER = "flowtrace-client";
        public static final String MECHANISM = "SCRAM-SHA-512";

        private final String password = "scram-" + java.util.UUID.randomUUID();
        private final String storePassword = "store-" + java.util.UUID.randomUUID();
        private java.nio.file.Path dir;
        private Process process;
        private int saslSslPort;

        @Override
        public void beforeAll(ExtensionContext context) throws Exception {
            start();
        }

        @Override
        public void afterAll(ExtensionContext context) throws Exception {
            close();
        }

        public void start() throws Exception {
            if (process != null) {
                return;
            }
            long started = System.nanoTime();
            dir = java.nio.file.Files.createTempDirectory("flowtrace-kafka-tls");
            makeCertificates();
            saslSslPort = freePort();
            int internal = freePort();
            int controller = freePort();
            Properties server = new Properties();
            server.putAll(brokerConfig());
            server.put("process.roles", "broker,controller");
            server.put("node.id", "1");
            server.put("controller.quorum.bootstrap.servers", "localhost:" + controller);
            server.put(
                    "listeners",
                    "SASL_SSL://localhost:" + saslSslPort + ",INTERNAL://localhost:" + internal
                            + ",CONTROLLER://localhost:" + controller);
            server.put("listener.security.protocol.map", "SASL_SSL:SASL_SSL,INTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT");
            server.put("inter.broker.listener.name", "INTERNAL");
            server.put("controller.listener.names", "CONTROLLER");
            server.put("log.dirs", dir.resolve("data").toString());
            server.put("sasl.enabled.mechanisms", MECHANISM);
            server.put(
                    "listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config",
                    "org.apache.kafka.common.security.scram.ScramLoginModule required;");
            server.put("ssl.keystore.location", dir.resolve("broker.p12").toString());
            server.put("ssl.keystore.type", "PKCS12");
            server.put("ssl.keystore.password", storePassword);
            server.put("ssl.key.password", storePassword);
            server.put("num.partitions", "1");
            java.nio.file.Path config = dir.resolve("server.properties");
            try (java.io.Writer w = java.nio.file.Files.newBufferedWriter(config)) {
                server.store(w, "flowtrace test broker (SASL_SSL)");
            }
            String clusterId = org.apache.kafka.common.Uuid.randomUuid().toString();
            run(
                    List.of(
                            javaBin(),
                            "-cp",
                            System.getProperty("java.class.path"),
                            "kafka.tools.StorageTool",
                            "format",
                            "-t",
                            clusterId,
                            "-c",
                            config.toString(),
                            "--standalone",
                            "--add-scram",
                            MECHANISM + "=[name=" + USER + ",password=" + password + "]"),
                    "format");
            ProcessBuilder pb = new ProcessBuilder(
                    javaBin(),
                    "-Xmx512m",
                    "-cp",
                    System.getProperty("java.class.path"),
                    "kafka.Kafka",
                    config.toString());
            pb.redirectErrorStream(true)
                    .redirectOutput(dir.resolve("broker.log").toFile());
            process = pb.start();
            awaitReady();
            LOG.info(
                    "Kafka (KRaft, SASL_SSL + SCRAM) ready at {} in {} ms",
                    bootstrapServers(),
                    (System.nanoTime() - started) / 1_000_000);
        }

        public void close() throws Exception {
            if (process != null) {
                process.destroy();
                if (!process.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor();
                }
                process = null;
            }
            if (dir != null) {
                try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.walk(dir)) {
                    files.sorted(java.util.Comparator.reverseOrder())
                            .forEach(f -> f.toFile().delete());
                }
                dir = null;
            }
        }

        /** The SASL_SSL listener: the only one clients get. */
        public String bootstrapServers() {
            if (process == null) {
                throw new IllegalStateException("KafkaBroker.Secured not started");
            }
            return "localhost:" + saslSslPort;
        }

        public String password() {
            return password;
        }

        /** The truststore (PKCS12) that holds the broker's self-signed certificate. */
        public java.nio.file.Path truststore() {
            return dir.resolve("truststore.p12");
        }

        public String truststorePassword() {
            return storePassword;
        }

        /**
         * Client security properties, without bootstrap.servers: what an operator writes into the
         * agent's {@code --kafka-config} file or the job's {@code --kafka.*} options.
         */
        public Map<String, String> securityProperties(String user, String password) {
            return Map.of(
                    "security.protocol",
                    "SASL_SSL",
                    "sasl.mechanism",
                    MECHANISM,
                    "sasl.jaas.config",
                    "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user
                            + "\" password=\"" + password + "\";",
                    "ssl.truststore.location",
                    truststore().toString(),
                    "ssl.truststore.type",
                    "PKCS12",
                    "ssl.truststore.password",
                    storePassword);
        }

        /** bootstrap.servers plus the right credentials. */
        public Properties clientProperties() {
            Properties p = new Properties();
            p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
            p.putAll(securityProperties(USER, password));
            return p;
        }

        public void createTopics(int partitions, String... names) {
            try (Admin admin = Admin.create(clientProperties())) {
                List<NewTopic> topics = new ArrayList<>();
                for (String name : names) {
                    topics.add(new NewTopic(name, partitions, (short) 1));
                }
                admin.createTopics(topics).all().get();
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (true) {
                    try {
                        if (admin.describeTopics(List.of(names)).allTopicNames().get().values().stream()
                                .allMatch(d -> d.partitions().stream()
                                        .allMatch(q -> q.leader() != null
                                                && !q.leader().isEmpty()))) {
                            return;
                        }
                    } catch (ExecutionException e) {
                        if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                            throw e;
                        }
                    }
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("no leader for every partition of " + List.of(names));
                    }
                    Thread.sleep(50);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            } catch (ExecutionException e) {
                throw new IllegalStateException("cannot create topics " + List.of(names), e.getCause());
            }
        }

        public KafkaProducer<byte[], byte[]> newProducer() {
            Properties props = clientProperties();
            props.put(ProducerConfig.ACKS_CONFIG, "all");
            props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
            props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
            return new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
        }

        public List<ConsumerRecord<byte[], byte[]>> readCommitted(String topic) {
            return readAll(clientProperties(), topic, IsolationLevel.READ_COMMITTED);
        }

        public List<ConsumerRecord<byte[], byte[]>> readUncommitted(String topic) {
            return readAll(clientProperties(), topic, IsolationLevel.READ_UNCOMMITTED);
        }

        private void makeCertificates() throws Exception {
            String broker = dir.resolve("broker.p12").toString();
            String cert = dir.resolve("broker.crt").toString();
            run(
                    List.of(
                            keytool(),
                            "-genkeypair",
                            "-alias",
                            "broker",
                            "-keyalg",
                            "RSA",
                            "-keysize",
                            "2048",
                            "-validity",
                            "2",
                            "-dname",
                            "CN=localhost",
                            "-ext",
                            "SAN=dns:localhost,ip:127.0.0.1",
                            "-keystore",
                            broker,
                            "-storetype",
                            "PKCS12",
                            "-storepass",
                            storePassword,
                            "-keypass",
                            storePassword),
                    "keytool -genkeypair");
            run(
                    List.of(
                            keytool(),
                            "-exportcert",
                            "-rfc",
                            "-alias",
                            "broker",
                            "-keystore",
                            broker,
                            "-storetype",
                            "PKCS12",
                            "-storepass",
                            storePassword,
                            "-file",
                            cert),
                    "keytool -exportcert");
            run(
                    List.of(
                            keytool(),
                            "-importcert",
                            "-noprompt",
                            "-alias",
                            "broker",
                            "-file",
                            cert,
                            "-keystore",
                            truststore().toString(),
                            "-storetype",
                            "PKCS12",
                            "-storepass",
                            storePassword),
                    "keytool -importcert");
        }

        private void awaitReady() throws Exception {
            long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
            Exception last = null;
            while (System.nanoTime() < deadline) {
                if (!process.isAlive()) {
                    throw new IllegalStateException("broker exited with " + process.exitValue() + ": " + logTail());
                }
                Properties p = clientProperties();
                p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "5000");
                p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "4000");
                try (Admin admin = Admin.create(p)) {
                    admin.describeCluster().nodes().get();
                    // create __consumer_offsets now, as the plain broker does
                    admin.listConsumerGroupOffsets("flowtrace-warm-up")
                            .partitionsToOffsetAndMetadata()
                            .get();
                    return;
                } catch (ExecutionException e) {
                    last = e;
                    Thread.sleep(500);
                }
            }
            throw new IllegalStateException("SASL_SSL broker not ready after 90 s: " + logTail(), last);
        }

        private String logTail() {
            try {
                String log = java.nio.file.Files.readString(dir.resolve("broker.log"));
                return log.length() > 4000 ? log.substring(log.length() - 4000) : log;
            } catch (java.io.IOException e) {
                return "(no log: " + e + ")";
            }
        }

        private void run(List<String> command, String what) throws Exception {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            if (!p.waitFor(120, java.util.concurrent.TimeUnit.SECONDS) || p.exitValue() != 0) {
                // the output never contains the passwords: keytool and StorageTool do not echo them
                throw new IllegalStateException(what + " failed: " + out);
            }
        }

        private static String javaBin() {
            return java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java")
                    .toString();
        }

        private static String keytool() {
            return java.nio.file.Path.of(System.getProperty("java.home"), "bin", "keytool")
                    .toString();
        }

        private static int freePort() throws java.io.IOException {
            try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
                return s.getLocalPort();
            }
        }
    }
}
