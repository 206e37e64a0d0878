package io.flowtrace.cli.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.agent.testing.CapturedPackets;
import io.flowtrace.cli.FlowtraceCli;
import io.flowtrace.core.testing.TestData;
import io.flowtrace.testkit.KafkaBroker;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code flowtrace agent packets} against a broker that only accepts TLS + SASL/SCRAM-SHA-512
 * (certificate generated in the test), configured through the operator's {@code --kafka-config}
 * producer properties file as docs/agent.md describes.
 */
class AgentSaslSslITCase {
    private static final String CAPTURE = "decoding/tcp4-sack.pcap";

    @RegisterExtension
    static final KafkaBroker.Secured KAFKA = new KafkaBroker.Secured();

    @TempDir
    Path dir;

    @Test
    void publishesEveryPacketOverSaslSslWithTheKafkaConfigFile() throws Exception {
        KAFKA.createTopics(2, "tls.packets");
        Path config = clientConfig(KAFKA.password());
        Path file = TestData.file(CAPTURE);

        Run run = agent(
                "agent",
                "packets",
                "--bootstrap-servers",
                KAFKA.bootstrapServers(),
                "--kafka-config",
                config.toString(),
                "--topic",
                "tls.packets",
                "--agent-id",
                "tls-host",
                "--spool-dir",
                dir.resolve("spool").toString(),
                file.toString());

        assertThat(run.exit).as(run.stderr).isZero();
        long expected = CapturedPackets.count(CapturedPackets.byFlow(file, "tls-host"));
        assertThat(CapturedPackets.count(CapturedPackets.byFlow(KAFKA.readUncommitted("tls.packets"))))
                .isEqualTo(expected);
        assertThat(run.stderr)
                .contains(String.format("%,d published", expected))
                .contains("0 left in spool");
    }

    /** A wrong password ends the run at once with Kafka's authentication error and a failing exit code, not a hang. */
    @Test
    void aWrongPasswordEndsTheRunWithTheAuthenticationErrorInsteadOfHanging() throws Exception {
        KAFKA.createTopics(1, "tls.wrong");
        Path config = clientConfig("not-the-password");
        Path file = TestData.file(CAPTURE);
        CompletableFuture<Run> future = CompletableFuture.supplyAsync(() -> agent(
                "agent",
                "packets",
                "--bootstrap-servers",
                KAFKA.bootstrapServers(),
                "--kafka-config",
                config.toString(),
                "--topic",
                "tls.wrong",
                "--agent-id",
                "tls-host",
                "--shutdown-timeout",
                "10",
                "--spool-dir",
                dir.resolve("spool-wrong").toString(),
                file.toString()));
        Run run = future.get(3, TimeUnit.MINUTES); // a hang fails here

        assertThat(run.exit).as(run.stderr).isNotZero();
        assertThat(run.stderr)
                .contains("SaslAuthenticationException")
                .contains("invalid credentials with SASL mechanism SCRAM-SHA-512");
        assertThat(KAFKA.readUncommitted("tls.wrong")).isEmpty();
    }

    private Path clientConfig(String password) throws Exception {
        Properties p = new Properties();
        p.putAll(KAFKA.securityProperties(KafkaBroker.Secured.USER, password));
        Path config = dir.resolve("kafka-" + password.hashCode() + ".properties");
        try (Writer w = Files.newBufferedWriter(config)) {
            p.store(w, "agent producer security");
        }
        return config;
    }

    record Run(int exit, String stderr) {}

    private static synchronized Run agent(String... args) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream saved = System.err;
        int exit;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            exit = new CommandLine(new FlowtraceCli()).execute(args);
        } finally {
            System.setErr(saved);
        }
        String text = err.toString(StandardCharsets.UTF_8);
        saved.print(text);
        return new Run(exit, text);
    }
}
