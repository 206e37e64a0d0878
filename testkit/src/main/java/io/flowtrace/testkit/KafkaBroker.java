package io.flowtrace.testkit;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.apache.kafka.server.common.MetadataVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real single-node KRaft Kafka (combined broker + controller) in the test JVM, from Kafka's own
 * KafkaClusterTestKit. Register it with {@code @RegisterExtension static final KafkaBroker KAFKA = new KafkaBroker();}
 * and create every topic, sink topics included, before a job uses it.
 */
public final class KafkaBroker implements ClassScopedService, KafkaClientSide {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaBroker.class);

    private KafkaClusterTestKit cluster;
    private Admin admin;

    /** Starts the broker; beforeAll calls it, call it yourself only outside JUnit (e.g. a demo). */
    @Override
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
        KafkaTopics.singleNodeBrokerConfig().forEach(builder::setConfigProp);
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

    @Override
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

    @Override
    public String bootstrapServers() {
        requireStarted();
        return cluster.bootstrapServers();
    }

    @Override
    public void createTopics(int partitions, String... names) {
        requireStarted();
        KafkaTopics.createTopics(admin, partitions, names);
    }

    @Override
    public Properties clientProperties() {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        return props;
    }

    private void requireStarted() {
        if (cluster == null) {
            throw new IllegalStateException(
                    "KafkaBroker not started: register it with @RegisterExtension on a static field");
        }
    }

    /**
     * A broker whose client listener speaks TLS with SASL/SCRAM-SHA-512 ({@code SASL_SSL}), for testing
     * the job's and the agents' security settings: Kafka's own broker in a child JVM
     * ({@link SaslSslBrokerProcess}) with a self-signed certificate for localhost ({@link BrokerKeystores})
     * and one SCRAM user. Register with
     * {@code @RegisterExtension static final KafkaBroker.Secured KAFKA = new KafkaBroker.Secured();}.
     */
    public static final class Secured implements ClassScopedService, KafkaClientSide {
        public static final String USER = "flowtrace-client";
        public static final String MECHANISM = "SCRAM-SHA-512";

        private final String password = "scram-" + UUID.randomUUID();
        private final String storePassword = "store-" + UUID.randomUUID();
        private SaslSslBrokerProcess broker;

        @Override
        public void start() throws Exception {
            if (broker != null) {
                return;
            }
            long started = System.nanoTime();
            broker = SaslSslBrokerProcess.start(
                    MECHANISM, USER, password, storePassword, (port, truststore) -> clientProperties(port, truststore));
            LOG.info(
                    "Kafka (KRaft, SASL_SSL + SCRAM) ready at {} in {} ms",
                    bootstrapServers(),
                    (System.nanoTime() - started) / 1_000_000);
        }

        @Override
        public void close() throws Exception {
            if (broker != null) {
                broker.close();
                broker = null;
            }
        }

        /** The SASL_SSL listener: the only one clients get. */
        @Override
        public String bootstrapServers() {
            return "localhost:" + started().clientPort();
        }

        public String password() {
            return password;
        }

        /** The truststore (PKCS12) that holds the broker's self-signed certificate. */
        public Path truststore() {
            return started().truststore();
        }

        public String truststorePassword() {
            return storePassword;
        }

        /**
         * Client security properties, without bootstrap.servers: what an operator writes into the
         * agent's {@code --kafka-config} file or the job's {@code --kafka.*} options.
         */
        public Map<String, String> securityProperties(String user, String password) {
            return securityProperties(user, password, truststore());
        }

        /** bootstrap.servers plus the right credentials. */
        @Override
        public Properties clientProperties() {
            return clientProperties(started().clientPort(), truststore());
        }

        @Override
        public void createTopics(int partitions, String... names) {
            try (Admin admin = Admin.create(clientProperties())) {
                KafkaTopics.createTopics(admin, partitions, names);
            }
        }

        private Properties clientProperties(int port, Path truststore) {
            Properties p = new Properties();
            p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:" + port);
            p.putAll(securityProperties(USER, password, truststore));
            return p;
        }

        private Map<String, String> securityProperties(String user, String password, Path truststore) {
            return Map.of(
                    "security.protocol",
                    "SASL_SSL",
                    "sasl.mechanism",
                    MECHANISM,
                    "sasl.jaas.config",
                    "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user
                            + "\" password=\"" + password + "\";",
                    "ssl.truststore.location",
                    truststore.toString(),
                    "ssl.truststore.type",
                    "PKCS12",
                    "ssl.truststore.password",
                    storePassword);
        }

        private SaslSslBrokerProcess started() {
            if (broker == null) {
                throw new IllegalStateException("KafkaBroker.Secured not started");
            }
            return broker;
        }
    }
}
