package io.flowtrace.testkit;

import java.io.IOException;
import java.io.Writer;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;

/**
 * The listener and security set-up of {@link KafkaBroker.Secured}: Kafka's own {@code kafka.Kafka}
 * in a child JVM (same jars as the test; the KRaft test kit computes its own listeners), combined
 * broker and controller, formatted with {@code kafka.tools.StorageTool --add-scram}. Three listeners
 * on free localhost ports: SASL_SSL for clients, plaintext INTERNAL for inter-broker traffic and
 * plaintext CONTROLLER; only the first is handed out.
 */
final class SaslSslBrokerProcess {

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);

    private final Path dir;
    private final BrokerKeystores keystores;
    private final int clientPort;
    private final Process process;

    private SaslSslBrokerProcess(Path dir, BrokerKeystores keystores, int clientPort, Process process) {
        this.dir = dir;
        this.keystores = keystores;
        this.clientPort = clientPort;
        this.process = process;
    }

    /**
     * Formats and starts the broker with one SCRAM user, and waits until {@code client} (the
     * properties a client of that user would use, given the port) can reach it.
     */
    static SaslSslBrokerProcess start(
            String mechanism, String user, String password, String storePassword, ClientProperties client)
            throws Exception {
        Path dir = Files.createTempDirectory("flowtrace-kafka-tls");
        BrokerKeystores keystores = BrokerKeystores.make(dir, storePassword);
        int clientPort = freePort();
        Properties server = serverProperties(dir, keystores, storePassword, mechanism, clientPort);
        Path config = dir.resolve("server.properties");
        try (Writer w = Files.newBufferedWriter(config)) {
            server.store(w, "flowtrace test broker (SASL_SSL)");
        }
        String scramUser = mechanism + "=[name=" + user + ",password=" + password + "]";
        ChildProcesses.run(
                List.of(
                        javaBin(),
                        "-cp",
                        classPath(),
                        "kafka.tools.StorageTool",
                        "format",
                        "-t",
                        Uuid.randomUuid().toString(),
                        "-c",
                        config.toString(),
                        "--standalone",
                        "--add-scram",
                        scramUser),
                "format");
        Process process = new ProcessBuilder(
                        javaBin(), "-Xmx512m", "-cp", classPath(), "kafka.Kafka", config.toString())
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("broker.log").toFile())
                .start();
        SaslSslBrokerProcess broker = new SaslSslBrokerProcess(dir, keystores, clientPort, process);
        try {
            broker.awaitReady(() -> client.of(clientPort, keystores.truststore()));
        } catch (Exception e) {
            broker.close();
            throw e;
        }
        return broker;
    }

    /** What a client of the broker sets, once the port and the truststore are known. */
    interface ClientProperties {
        Properties of(int port, Path truststore);
    }

    private static Properties serverProperties(
            Path dir, BrokerKeystores keystores, String storePassword, String mechanism, int clientPort)
            throws IOException {
        int internal = freePort();
        int controller = freePort();
        Properties server = new Properties();
        server.putAll(KafkaTopics.singleNodeBrokerConfig());
        server.put("process.roles", "broker,controller");
        server.put("node.id", "1");
        server.put("controller.quorum.bootstrap.servers", "localhost:" + controller);
        server.put(
                "listeners",
                "SASL_SSL://localhost:" + clientPort + ",INTERNAL://localhost:" + internal + ",CONTROLLER://localhost:"
                        + controller);
        server.put("listener.security.protocol.map", "SASL_SSL:SASL_SSL,INTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT");
        server.put("inter.broker.listener.name", "INTERNAL");
        server.put("controller.listener.names", "CONTROLLER");
        server.put("log.dirs", dir.resolve("data").toString());
        server.put("sasl.enabled.mechanisms", mechanism);
        server.put(
                "listener.name.sasl_ssl." + mechanism.toLowerCase(Locale.ROOT) + ".sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required;");
        server.put("ssl.keystore.location", keystores.keystore().toString());
        server.put("ssl.keystore.type", "PKCS12");
        server.put("ssl.keystore.password", storePassword);
        server.put("ssl.key.password", storePassword);
        server.put("num.partitions", "1");
        return server;
    }

    int clientPort() {
        return clientPort;
    }

    Path truststore() {
        return keystores.truststore();
    }

    /** Stops the broker (SIGTERM, then SIGKILL after 20 s) and deletes its directory. */
    void close() throws IOException, InterruptedException {
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
    }

    private void awaitReady(Supplier<Properties> client) throws Exception {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        Exception last = null;
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("broker exited with " + process.exitValue() + ": " + logTail());
            }
            Properties p = client.get();
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
            String log = Files.readString(dir.resolve("broker.log"));
            return log.length() > 4000 ? log.substring(log.length() - 4000) : log;
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    private static String javaBin() {
        return ChildProcesses.jdkTool("java");
    }

    private static String classPath() {
        return System.getProperty("java.class.path");
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
