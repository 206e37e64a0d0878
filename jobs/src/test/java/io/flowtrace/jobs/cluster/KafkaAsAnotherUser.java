package io.flowtrace.jobs.cluster;

import io.flowtrace.testkit.cluster.JavaProcess;
import io.flowtrace.testkit.cluster.StandaloneStack;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

/**
 * What another local user (uid 65534, {@link AnotherLocalUser}) tries against the cluster's Kafka
 * broker, with the Kafka client of the agent's own lib/ (a real client in a process of that user): a
 * program run by {@code java} from its source, which produces one record and reads the topic, either
 * in plaintext or over SASL_SSL/SCRAM with a guessed password. And a squatter: a TLS server of that user
 * ({@code openssl s_server}, with a certificate it made for CN and SAN 127.0.0.1) on a port our client
 * was told is the broker's.
 */
final class KafkaAsAnotherUser {
    /** The attacker's program; prints one line per attempt: "produce: ok" or "produce: refused CAUSE". */
    private static final String PROGRAM = """
            import java.time.Duration;
            import java.util.List;
            import java.util.Properties;
            import org.apache.kafka.clients.consumer.KafkaConsumer;
            import org.apache.kafka.clients.producer.KafkaProducer;
            import org.apache.kafka.clients.producer.ProducerRecord;
            import org.apache.kafka.common.TopicPartition;
            import org.apache.kafka.common.serialization.ByteArrayDeserializer;
            import org.apache.kafka.common.serialization.ByteArraySerializer;

            // what a client without TLS makes of the broker's TLS alert: a record size of 352 MB, then an
            // OutOfMemoryError (caught: the attempt is refused either way)
            public class KafkaAttempt {
                // args: bootstrap topic [certificate.pem password]
                public static void main(String[] a) {
                    Properties p = new Properties();
                    p.put("bootstrap.servers", a[0]);
                    if (a.length > 2) {
                        p.put("security.protocol", "SASL_SSL");
                        p.put("sasl.mechanism", "SCRAM-SHA-512");
                        p.put("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule"
                                + " required username=\\"flowtrace\\" password=\\"" + a[3] + "\\";");
                        p.put("ssl.truststore.type", "PEM");
                        p.put("ssl.truststore.location", a[2]);
                    }
                    p.put("max.block.ms", "15000");
                    p.put("request.timeout.ms", "10000");
                    p.put("delivery.timeout.ms", "15000");
                    p.put("default.api.timeout.ms", "15000");
                    try (var producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
                        producer.send(new ProducerRecord<>(a[1], "forged".getBytes())).get();
                        System.out.println("produce: ok");
                    } catch (Throwable e) {
                        System.out.println("produce: refused " + cause(e));
                    }
                    try (var consumer =
                            new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
                        TopicPartition tp = new TopicPartition(a[1], 0);
                        consumer.assign(List.of(tp));
                        consumer.seekToBeginning(List.of(tp));
                        System.out.println("consume: ok, position " + consumer.position(tp, Duration.ofSeconds(15)));
                    } catch (Throwable e) {
                        System.out.println("consume: refused " + cause(e));
                    }
                }

                static String cause(Throwable e) {
                    while (e.getCause() != null) {
                        e = e.getCause();
                    }
                    return e.getClass().getSimpleName() + ": " + e.getMessage();
                }
            }
            """;

    private KafkaAsAnotherUser() {}

    /** A directory uid 65534 may read and write (0777 in a new temporary directory); deleted by the caller. */
    static Path sharedDirectory() throws IOException {
        Path dir = Files.createTempDirectory("flowtrace-kafka-attempt");
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        return dir;
    }

    /**
     * Runs the attacker's program as uid 65534 against {@code bootstrap}: in plaintext when
     * {@code certificate} is null, else SASL_SSL/SCRAM trusting {@code certificate} with {@code password}.
     */
    static String attempt(Path dir, String bootstrap, String topic, Path certificate, String password)
            throws Exception {
        Path source = dir.resolve("KafkaAttempt.java");
        if (!Files.exists(source)) {
            Files.writeString(source, PROGRAM);
            Files.setPosixFilePermissions(source, PosixFilePermissions.fromString("rw-r--r--"));
        }
        List<String> cmd = new ArrayList<>(List.of(
                JavaProcess.javaBinary(),
                "-Xmx128m",
                "-Djava.io.tmpdir=" + dir,
                "-cp",
                StandaloneStack.agentClasspath(),
                source.toString(),
                bootstrap,
                topic));
        if (certificate != null) {
            cmd.addAll(List.of(certificate.toString(), password));
        }
        return AnotherLocalUser.run(cmd);
    }

    /**
     * A TLS server of uid 65534 on a free port of 127.0.0.1, with its own key and a certificate for CN
     * and SAN 127.0.0.1 (what a squatter that won the race for the broker's port would run); stop it
     * with {@link Process#destroy()}.
     */
    static Squatter squatter(Path dir) throws Exception {
        String made = AnotherLocalUser.run(List.of(
                "openssl",
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-days",
                "1",
                "-subj",
                "/CN=127.0.0.1",
                "-addext",
                "subjectAltName=IP:127.0.0.1,DNS:localhost",
                "-keyout",
                dir.resolve("squatter.key").toString(),
                "-out",
                dir.resolve("squatter.crt").toString()));
        if (!Files.exists(dir.resolve("squatter.crt"))) {
            throw new IllegalStateException("openssl req failed: " + made);
        }
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Process p = new ProcessBuilder(List.of(
                        "setpriv",
                        "--reuid",
                        AnotherLocalUser.NOBODY,
                        "--regid",
                        AnotherLocalUser.NOBODY,
                        "--clear-groups",
                        "--",
                        "openssl",
                        "s_server",
                        "-quiet",
                        "-accept",
                        "127.0.0.1:" + port,
                        "-cert",
                        dir.resolve("squatter.crt").toString(),
                        "-key",
                        dir.resolve("squatter.key").toString()))
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("squatter.log").toFile())
                .start();
        return new Squatter(p, port, dir.resolve("squatter.log"));
    }

    /** The squatter's process, its port and its output (what it received after a handshake). */
    record Squatter(Process process, int port, Path log) {}
}
