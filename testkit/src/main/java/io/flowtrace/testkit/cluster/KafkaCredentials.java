package io.flowtrace.testkit.cluster;

import io.flowtrace.testkit.FlinkTls;
import io.flowtrace.testkit.PrivateDirectory;
import io.flowtrace.testkit.Secrets;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The secrets of one run of {@link KafkaServer}, all in the user's private 0700 directory: a key pair
 * made once by {@link FlinkTls} (one keytool run; TLS of the client and the controller listener), its
 * certificate as PEM (what clients trust: {@code ssl.truststore.type=PEM}, so they never get the key),
 * a random SCRAM-SHA-512 password for the clients' user {@value KafkaServer#USER} and one for the
 * broker's own inter-broker login, and the clients' properties in two 0600 files.
 */
final class KafkaCredentials {
    static final String MECHANISM = "SCRAM-SHA-512";
    private static final String SCRAM_LOGIN = "org.apache.kafka.common.security.scram.ScramLoginModule required";
    private static final String BROKER_USER = "broker";

    private final Path privateDir;
    private final FlinkTls tls;
    private final Path certificate;
    private final String password = Secrets.randomPassword();
    private final String brokerPassword = Secrets.randomPassword();
    private Path clientConfigFile;
    private Path jobConfigFile;

    private KafkaCredentials(Path privateDir, FlinkTls tls) throws IOException {
        this.privateDir = privateDir;
        this.tls = tls;
        this.certificate = tls.writeCertificatePem();
    }

    static KafkaCredentials create() throws IOException {
        Path dir = PrivateDirectory.open();
        try {
            return new KafkaCredentials(dir, FlinkTls.create(dir));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while making the broker's keystore", e);
        }
    }

    /** The security lines of server.properties (which is 0600: they hold the passwords). */
    List<String> serverProperties() {
        String store = tls.keystore().toString();
        return List.of(
                "listener.security.protocol.map=SASL_SSL:SASL_SSL,CONTROLLER:SSL",
                "inter.broker.listener.name=SASL_SSL",
                "sasl.enabled.mechanisms=" + MECHANISM,
                "sasl.mechanism.inter.broker.protocol=" + MECHANISM,
                // the server's SCRAM login module; its user and password are the broker's inter-broker login
                "listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=" + jaas(BROKER_USER, brokerPassword),
                "listener.name.controller.ssl.client.auth=required",
                "ssl.keystore.location=" + store,
                "ssl.keystore.type=PKCS12",
                "ssl.keystore.password=" + tls.password(),
                "ssl.key.password=" + tls.password(),
                // the key store trusts its own certificate: the controller accepts only the broker
                "ssl.truststore.location=" + store,
                "ssl.truststore.type=PKCS12",
                "ssl.truststore.password=" + tls.password());
    }

    /** The {@code --add-scram} arguments of {@code kafka-storage format}: both users with their passwords. */
    List<String> formatArguments() {
        return List.of(
                "--add-scram",
                MECHANISM + "=[name=" + KafkaServer.USER + ",password=" + password + "]",
                "--add-scram",
                MECHANISM + "=[name=" + BROKER_USER + ",password=" + brokerPassword + "]");
    }

    /** A client's security properties as user {@value KafkaServer#USER} with {@code password}. */
    Map<String, String> clientSecurity(String password) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("security.protocol", "SASL_SSL");
        p.put("sasl.mechanism", MECHANISM);
        p.put("sasl.jaas.config", jaas(KafkaServer.USER, password));
        p.put("ssl.truststore.type", "PEM");
        p.put("ssl.truststore.location", certificate.toString());
        return p;
    }

    /** {@link #clientSecurity} with the run's password. */
    Map<String, String> clientSecurity() {
        return clientSecurity(password);
    }

    /**
     * Writes the agents' {@code --kafka-config} (client properties) and the job's {@code --config}
     * ({@code bootstrap-servers} and {@code kafka.*} pass-through options), 0600 each.
     */
    void writeClientFiles(String bootstrapServers) throws IOException {
        StringBuilder client = new StringBuilder("bootstrap.servers=" + bootstrapServers);
        StringBuilder job = new StringBuilder("bootstrap-servers=" + bootstrapServers);
        // java.util.Properties reads a backslash as an escape; none of these values has one
        clientSecurity().forEach((k, v) -> {
            client.append('\n').append(k).append('=').append(v);
            job.append('\n').append("kafka.").append(k).append('=').append(v);
        });
        clientConfigFile = Secrets.file(privateDir, "kafka-client-", client.toString());
        jobConfigFile = Secrets.file(privateDir, "kafka-job-", job.toString());
    }

    Path certificate() {
        return certificate;
    }

    Path clientConfigFile() {
        if (clientConfigFile == null) {
            throw new IllegalStateException("the broker has not started");
        }
        return clientConfigFile;
    }

    Path jobConfigFile() {
        if (jobConfigFile == null) {
            throw new IllegalStateException("the broker has not started");
        }
        return jobConfigFile;
    }

    /** Deletes the key store, the certificate and the client files. */
    void delete() throws IOException {
        tls.delete();
        for (Path f : new Path[] {clientConfigFile, jobConfigFile}) {
            if (f != null) {
                Files.deleteIfExists(f);
            }
        }
    }

    private static String jaas(String user, String password) {
        return SCRAM_LOGIN + " username=\"" + user + "\" password=\"" + password + "\";";
    }
}
