package io.flowtrace.cli.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.flowtrace.agent.testing.CapturedPackets;
import io.flowtrace.agent.testing.PrometheusText;
import io.flowtrace.testkit.KafkaBroker;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code flowtrace agent packets --iface lo} in a network namespace of its own (ftlive-PID), as a
 * separate process stopped with SIGTERM: every TCP packet tcpdump says it captured is in Kafka, and
 * tcpdump's counts are live on the agent's metrics endpoint while it captures (SIGUSR1 each second).
 * The agent batches per flow (the default, linger on the wall clock): the packets of the batches
 * in the topic are counted.
 * Needs root, iproute2, tcpdump and python3 (the traffic); skipped otherwise.
 */
class TcpdumpAgentLiveITCase {
    @RegisterExtension
    static final KafkaBroker KAFKA = new KafkaBroker();

    private static final Pattern CAPTURED = Pattern.compile("tcpdump_packets_captured ([\\d,]+)");
    private static final Pattern DROPPED = Pattern.compile("tcpdump_packets_dropped_by_kernel ([\\d,]+)");
    private static final Pattern PUBLISHED = Pattern.compile("([\\d,]+) published");
    private static final Pattern METRICS_URL = Pattern.compile("metrics on (http://\\S+/metrics)");

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private final String ns = "ftlive-" + ProcessHandle.current().pid();

    @TempDir
    Path tmp;

    @BeforeEach
    void namespace() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "needs root");
        assumeTrue(
                Files.isExecutable(Path.of("/usr/bin/tcpdump")) || Files.isExecutable(Path.of("/usr/sbin/tcpdump")),
                "needs tcpdump (apt-get install tcpdump)");
        assumeTrue(AgentOutput.sh("python3", "-c", "pass") == 0, "needs python3");
        assumeTrue(AgentOutput.sh("ip", "netns", "add", ns) == 0, "cannot create a network namespace");
        assertThat(AgentOutput.sh("ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up"))
                .isZero();
    }

    @AfterEach
    void cleanup() throws Exception {
        AgentOutput.sh("ip", "netns", "del", ns);
    }

    @Test
    void publishesEveryPacketTcpdumpCapturedInTheNamespace() throws Exception {
        KAFKA.createTopic("live", 2);
        Path wrapper = tmp.resolve("tcpdump-in-ns");
        Files.writeString(wrapper, "#!/bin/sh\nexec ip netns exec " + ns + " tcpdump \"$@\"\n");
        Files.setPosixFilePermissions(wrapper, PosixFilePermissions.fromString("rwx------"));
        String java = ProcessHandle.current().info().command().orElse("java");
        Process agent = new ProcessBuilder(
                        java,
                        "-cp",
                        System.getProperty("java.class.path"),
                        "io.flowtrace.cli.FlowtraceCli",
                        "agent",
                        "packets",
                        "--iface",
                        "lo",
                        "--filter",
                        "tcp",
                        "--tcpdump",
                        wrapper.toString(),
                        "--bootstrap-servers",
                        KAFKA.bootstrapServers(),
                        "--topic",
                        "live",
                        "--agent-id",
                        "live-it",
                        "--spool-dir",
                        tmp.resolve("spool").toString(),
                        "--metrics-port",
                        "0",
                        "--tcpdump-stats-interval",
                        "1")
                .redirectErrorStream(true)
                .start();
        AgentOutput output = AgentOutput.follow(agent);
        output.await("listening on lo", 60);

        // 30 connections of 20 KB each on the namespace's loopback.
        String traffic = String.join(
                "\n",
                "import socket, threading",
                "srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)",
                "srv.bind(('127.0.0.1', 5001)); srv.listen(64)",
                "def serve():",
                "    for _ in range(30):",
                "        c, _ = srv.accept()",
                "        while c.recv(65536): pass",
                "        c.close()",
                "t = threading.Thread(target=serve); t.start()",
                "for _ in range(30):",
                "    s = socket.create_connection(('127.0.0.1', 5001)); s.sendall(b'x' * 20000); s.close()",
                "t.join()");
        assertThat(AgentOutput.sh("ip", "netns", "exec", ns, "python3", "-c", traffic))
                .isZero();

        // While tcpdump still runs: its SIGUSR1 reports (every second) reach the metrics endpoint, and
        // once the traffic is over, what tcpdump says it captured is what the agent published.
        URI metrics = URI.create(output.group(METRICS_URL, 1, 10));
        String labels = "agent=live-it,topic=live";
        long liveCaptured = -1;
        long livePublished = -2;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline && (liveCaptured <= 30 * 6 || liveCaptured != livePublished)) {
            Thread.sleep(500);
            Map<String, Long> scrape = PrometheusText.parse(
                    HTTP.send(HttpRequest.newBuilder(metrics).GET().build(), HttpResponse.BodyHandlers.ofString())
                            .body());
            liveCaptured = scrape.getOrDefault(
                    "flowtrace_agent_source_total{" + labels + ",counter=tcpdump_packets_captured}", -1L);
            livePublished = scrape.getOrDefault("flowtrace_agent_records_total{" + labels + ",stage=published}", -2L);
        }
        assertThat(liveCaptured)
                .as("tcpdump's captured count, live through SIGUSR1 and /metrics")
                .isGreaterThan(30 * 6);
        assertThat(livePublished).as("published, live").isEqualTo(liveCaptured);
        // SIGTERM only (Process.destroy() would also close our end of its output): the agent stops
        // tcpdump, publishes what it wrote, flushes and prints its summary.
        agent.toHandle().destroy();
        assertThat(agent.waitFor(60, TimeUnit.SECONDS))
                .as("agent exits after SIGTERM")
                .isTrue();
        output.join();

        String all = output.all();
        long captured = number(CAPTURED, all);
        long published = number(PUBLISHED, all);
        // Packets, not records: the agent publishes per-flow batches by default (expanded here).
        long inKafka = CapturedPackets.count(CapturedPackets.byFlow(KAFKA.readUncommitted("live")));
        System.err.printf(
                "live: tcpdump captured %d, agent published %d, topic holds %d%n", captured, published, inKafka);
        assertThat(captured).as("tcpdump's own count").isGreaterThan(30 * 6);
        assertThat(number(DROPPED, all)).as("dropped by kernel").isZero();
        assertThat(published).isEqualTo(captured);
        assertThat(inKafka).isEqualTo(captured);
        assertThat(captured)
                .as("no packet between the last live report and the exit")
                .isEqualTo(liveCaptured);
        // 143 = 128 + SIGTERM: the JVM's status after running its shutdown hooks for a signal.
        assertThat(agent.exitValue()).isIn(0, 143);
    }

    private static long number(Pattern p, String text) {
        Matcher m = p.matcher(text);
        assertThat(m.find()).as("%s in the agent's output", p).isTrue();
        return Long.parseLong(m.group(1).replace(",", ""));
    }
}
