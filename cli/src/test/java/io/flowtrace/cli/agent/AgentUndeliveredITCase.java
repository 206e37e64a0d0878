package io.flowtrace.cli.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.agent.testing.CapturedPackets;
import io.flowtrace.agent.testing.RestartableKafka;
import io.flowtrace.avro.PacketEvent;
import io.flowtrace.cli.FlowtraceCli;
import io.flowtrace.core.testing.TestData;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agents as separate processes with their Kafka broker stopped (a real KRaft broker, shut down):
 * at the end of a replay, and after SIGTERM, what Kafka did not take is in the spool, the last line
 * on stderr says how much and where, and the exit status is 4 ("not delivered", --help and
 * docs/agent.md), not 0 or 143. Started again with the broker back, the agent sends the spool
 * first: the topic then holds every packet of the capture, in order, nothing lost.
 */
class AgentUndeliveredITCase {
    private static final long TIMEOUT_SECONDS = 120;
    private static final Pattern NOT_DELIVERED = Pattern.compile(
            "flowtrace agent: NOT DELIVERED: ([\\d,]+) (packets|events) in ([\\d,]+) records remain in the spool (\\S+)"
                    + " \\(Kafka did not take them within --shutdown-timeout 3 s\\); a later start with --spool-dir"
                    + " (\\S+) sends them first");
    private static final Pattern SUMMARY =
            Pattern.compile("([\\d,]+) read, ([\\d,]+) published, ([\\d,]+) spooled, .* ([\\d,]+) left in spool;");

    private static final RestartableKafka KAFKA = new RestartableKafka();

    @TempDir
    Path tmp;

    @BeforeAll
    static void broker() throws Exception {
        KAFKA.start();
    }

    @AfterAll
    static void stopBroker() throws Exception {
        KAFKA.close();
    }

    @Test
    void replayWithTheBrokerDownExitsFourSayingWhatIsSpooledAndTheNextStartDeliversIt() throws Exception {
        Path file = TestData.file("tcp/cubic-loss.sender.pcap.gz");
        Map<String, List<PacketEvent>> capture = CapturedPackets.byFlow(file, "undelivered-it");
        long tcpPackets = CapturedPackets.count(capture);
        KAFKA.createTopic("undelivered", 2);
        Path spool = tmp.resolve("spool");

        KAFKA.stopBroker();
        Run down;
        try {
            down = Run.start(packets(file, spool)).awaitExit();
        } finally {
            KAFKA.startBroker();
        }

        assertThat(down.exit).as("exit status, output:%n%s", down.text()).isEqualTo(AgentExit.SPOOLED);
        Matcher summary = SUMMARY.matcher(down.text());
        assertThat(summary.find()).as("summary line").isTrue();
        assertThat(number(summary.group(2))).as("published").isZero();
        Matcher line = notDelivered(down);
        assertThat(number(line.group(1))).as("packets said to be in the spool").isEqualTo(tcpPackets);
        assertThat(line.group(2)).isEqualTo("packets");
        assertThat(Path.of(line.group(4))).isEqualTo(spool);
        assertThat(line.group(5)).isEqualTo(spool.toString());
        try (var segments = Files.list(spool)) {
            assertThat(segments.filter(p -> p.toString().endsWith(".seg"))).isNotEmpty();
        }

        // The broker is back: a second replay of the same capture sends the spool first, then its own packets.
        Run up = Run.start(packets(file, spool)).awaitExit();
        assertThat(up.exit).as("exit status, output:%n%s", up.text()).isZero();
        assertThat(up.text()).doesNotContain("NOT DELIVERED").contains("0 left in spool");
        Map<String, List<PacketEvent>> topic = CapturedPackets.byFlow(KAFKA.readAll("undelivered"));
        assertThat(topic.keySet()).containsExactlyInAnyOrderElementsOf(capture.keySet());
        for (Map.Entry<String, List<PacketEvent>> flow : capture.entrySet()) {
            List<PacketEvent> twice = new ArrayList<>(flow.getValue());
            twice.addAll(flow.getValue());
            assertThat(topic.get(flow.getKey()))
                    .as("flow %s: the spooled run's packets, then the second run's", flow.getKey())
                    .containsExactlyElementsOf(twice);
        }
    }

    @Test
    void sigtermWithTheBrokerDownExitsFourNot143() throws Exception {
        Path file = TestData.file("tcp/cubic-loss.sender.pcap.gz");
        Path spool = tmp.resolve("spool");
        KAFKA.createTopic("undelivered-sigterm", 2);
        List<String> command = packets(file, spool, "--topic", "undelivered-sigterm", "--pace", "0.2");

        KAFKA.stopBroker();
        Run run;
        try {
            // 4.7 s of capture at a fifth of its speed: ~23 s; SIGTERM once the 5 s progress line shows it spooling.
            run = Run.start(command);
            run.awaitLine("SPOOLING");
            run.process.toHandle().destroy(); // SIGTERM
            run.awaitExit();
        } finally {
            KAFKA.startBroker();
        }

        assertThat(run.exit).as("exit status, output:%n%s", run.text()).isEqualTo(AgentExit.SPOOLED);
        Matcher summary = SUMMARY.matcher(run.text());
        assertThat(summary.find()).as("summary line").isTrue();
        long read = number(summary.group(1));
        assertThat(read).as("stopped before the end of the capture").isLessThan(5_352);
        Matcher line = notDelivered(run);
        assertThat(number(line.group(1)))
                .as("packets in the spool = left in spool in the summary")
                .isEqualTo(number(summary.group(4)))
                .isPositive();
    }

    @Test
    void conntrackAgentWithTheBrokerDownExitsFourSayingHowManyEventsEvenWithQuiet() throws Exception {
        Path events = TestData.file("conntrack/v4_plain.events.txt");
        // conntrack -E lines, one event each: "[NEW]", "[UPDATE]" or "[DESTROY]" after the timestamp
        long expected = Files.readAllLines(events).stream()
                .filter(l -> l.matches("^\\[[\\d.]+\\]\\s+\\[(NEW|UPDATE|DESTROY)\\] .*"))
                .count();
        assertThat(expected).isPositive();
        Path spool = tmp.resolve("conntrack-spool");
        KAFKA.createTopic("undelivered-conntrack", 1);

        KAFKA.stopBroker();
        Run run;
        try {
            run = Run.start(List.of(
                            "agent",
                            "conntrack",
                            "--bootstrap-servers",
                            KAFKA.bootstrapServers(),
                            "--topic",
                            "undelivered-conntrack",
                            "--agent-id",
                            "undelivered-it",
                            "--spool-dir",
                            spool.toString(),
                            "--shutdown-timeout",
                            "3",
                            "--source",
                            "conntrack-tool",
                            "--input",
                            events.toString(),
                            "-q"))
                    .awaitExit();
        } finally {
            KAFKA.startBroker();
        }

        assertThat(run.exit).as("exit status, output:%n%s", run.text()).isEqualTo(AgentExit.SPOOLED);
        Matcher line = notDelivered(run);
        assertThat(number(line.group(1))).as("events in the spool").isEqualTo(expected);
        assertThat(line.group(2)).isEqualTo("events");
        assertThat(number(line.group(3))).as("one record per event").isEqualTo(expected);
        assertThat(run.lines)
                .as("with -q the one line of the agent")
                .filteredOn(l -> l.startsWith("flowtrace agent"))
                .hasSize(1);
    }

    private List<String> packets(Path file, Path spool, String... more) {
        List<String> args = new ArrayList<>(List.of(
                "agent",
                "packets",
                "--bootstrap-servers",
                KAFKA.bootstrapServers(),
                "--topic",
                "undelivered",
                "--agent-id",
                "undelivered-it",
                "--spool-dir",
                spool.toString(),
                "--shutdown-timeout",
                "3"));
        for (int i = 0; i < more.length; i += 2) {
            int at = args.indexOf(more[i]);
            if (at >= 0) {
                args.set(at + 1, more[i + 1]);
            } else {
                args.addAll(List.of(more[i], more[i + 1]));
            }
        }
        args.add(file.toString());
        return args;
    }

    /** The NOT DELIVERED line, which must be the agent's last line (the producer's log lines aside). */
    private static Matcher notDelivered(Run run) {
        List<String> own = run.lines.stream()
                .filter(l -> l.startsWith("flowtrace agent") || l.startsWith("  "))
                .toList();
        assertThat(own).as("the agent's lines").isNotEmpty();
        Matcher m = NOT_DELIVERED.matcher(own.get(own.size() - 1));
        assertThat(m.matches())
                .as("last line of the agent: %s", own.get(own.size() - 1))
                .isTrue();
        return m;
    }

    private static long number(String digits) {
        return Long.parseLong(digits.replace(",", ""));
    }

    /** One agent process, stdout and stderr merged in the order written. */
    private static final class Run {
        final Process process;
        final List<String> lines = new CopyOnWriteArrayList<>();
        final Thread reader;
        volatile CompletableFuture<Void> awaited = new CompletableFuture<>();
        volatile String awaitedText;
        int exit;

        private Run(Process process) {
            this.process = process;
            this.reader = new Thread(this::read, "agent-output");
            reader.start();
        }

        static Run start(List<String> args) throws IOException {
            List<String> command = new ArrayList<>(List.of(
                    ProcessHandle.current().info().command().orElse("java"),
                    "-cp",
                    System.getProperty("java.class.path"),
                    FlowtraceCli.class.getName()));
            command.addAll(args);
            return new Run(new ProcessBuilder(command).redirectErrorStream(true).start());
        }

        private void read() {
            try (BufferedReader r =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    lines.add(line);
                    System.err.println("agent> " + line);
                    String text = awaitedText;
                    if (text != null && line.contains(text)) {
                        awaited.complete(null);
                    }
                }
            } catch (IOException e) {
                awaited.completeExceptionally(e);
            }
        }

        void awaitLine(String text) throws Exception {
            awaitedText = text;
            if (lines.stream().anyMatch(l -> l.contains(text))) {
                return;
            }
            awaited.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }

        Run awaitExit() throws InterruptedException {
            if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("the agent did not end within " + TIMEOUT_SECONDS + " s:\n" + text());
            }
            reader.join(10_000);
            exit = process.exitValue();
            return this;
        }

        String text() {
            return String.join("\n", lines);
        }
    }
}
