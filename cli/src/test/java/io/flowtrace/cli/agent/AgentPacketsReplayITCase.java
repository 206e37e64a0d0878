package io.flowtrace.cli.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.flowtrace.agent.testing.CapturedPackets;
import io.flowtrace.avro.PacketEvent;
import io.flowtrace.cli.FlowtraceCli;
import io.flowtrace.cli.PseudoTerminal;
import io.flowtrace.core.testing.TestData;
import io.flowtrace.testkit.KafkaBroker;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

/**
 * {@code flowtrace agent packets FILE} against a real broker: every TCP packet of a committed capture
 * arrives exactly once, keyed by its flow, in one partition per flow, in capture order; compared
 * with the same file decoded directly (core only, no agent code). Both with per-flow batches (the
 * default; the topic's batches expanded by the contract's mapping) and with {@code --batch off}.
 */
class AgentPacketsReplayITCase {
    @RegisterExtension
    static final KafkaBroker KAFKA = new KafkaBroker();

    @TempDir
    Path spool;

    static Stream<Arguments> captures() {
        List<Arguments> cases = new ArrayList<>();
        for (String batch : List.of("on", "off")) {
            for (String capture : List.of(
                    "tcp/cubic-loss.sender.pcap.gz",
                    "decoding/tcp4-2if.pcapng",
                    "decoding/tcp6-sack.pcap",
                    "decoding/tcp4-truncated.pcap")) {
                cases.add(Arguments.of(capture, batch));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest
    @MethodSource("captures")
    void publishesEveryTcpPacketExactlyOnceKeyedAndInOrderPerFlow(String capture, String batch) throws Exception {
        String topic = "replay-" + batch + "-" + capture.replaceAll("[^a-z0-9]", "-");
        KAFKA.createTopic(topic, 4);
        Path file = TestData.file(capture);

        Run run = agent(
                "agent",
                "packets",
                "--bootstrap-servers",
                KAFKA.bootstrapServers(),
                "--topic",
                topic,
                "--agent-id",
                "it-host",
                "--spool-dir",
                spool.toString(),
                "--batch",
                batch,
                file.toString());

        assertThat(run.exit).as(run.stderr).isZero();
        Map<String, List<PacketEvent>> expected = CapturedPackets.byFlow(file, "it-host");
        List<ConsumerRecord<byte[], byte[]>> records = KAFKA.readUncommitted(topic);
        Map<String, List<PacketEvent>> got = CapturedPackets.byFlow(records);
        if (batch.equals("on")) {
            // Fewer records than packets, all of them batches: at most one per flow and 512 packets
            // (the default), at least one per flow.
            assertThat(CapturedPackets.batches(records)).isEqualTo(records.size());
            assertThat((long) records.size())
                    .isLessThan(CapturedPackets.count(expected))
                    .isGreaterThanOrEqualTo(Math.max(expected.size(), CapturedPackets.count(expected) / 512));
            assertThat(run.stderr).contains(String.format("batches: %,d published", records.size()));
        } else {
            assertThat(CapturedPackets.batches(records)).isZero();
            assertThat((long) records.size()).isEqualTo(CapturedPackets.count(expected));
        }
        assertThat(CapturedPackets.count(got)).isEqualTo(CapturedPackets.count(expected));
        assertThat(got.keySet()).containsExactlyInAnyOrderElementsOf(expected.keySet());
        for (Map.Entry<String, List<PacketEvent>> flow : expected.entrySet()) {
            assertThat(got.get(flow.getKey())).as("flow %s", flow.getKey()).containsExactlyElementsOf(flow.getValue());
        }
        assertThat(run.stderr)
                .contains(String.format("%,d published", CapturedPackets.count(expected)))
                .contains("0 dropped")
                .contains("0 left in spool");
        try (Stream<Path> files = Files.list(spool)) {
            assertThat(files.filter(p -> p.toString().endsWith(".seg"))).isEmpty();
        }
    }

    @Test
    void countsMalformedAndNonTcpFramesByReasonWithoutFailing() throws Exception {
        KAFKA.createTopic("replay-reasons", 1);
        Run run = agent(
                "agent",
                "packets",
                "--bootstrap-servers",
                KAFKA.bootstrapServers(),
                "--topic",
                "replay-reasons",
                "--spool-dir",
                spool.toString(),
                TestData.file("decoding/ipv4-frag-opts.pcap").toString());
        assertThat(run.exit).as(run.stderr).isZero();
        // tshark's own dissection of this file (ipv4-frag-opts.pcap.tshark.tsv) has non-first fragments.
        assertThat(run.stderr).contains("skipped:").contains("non-first-fragment");
    }

    @Test
    void drawsTheProgressBarOnATerminalAndClearsItBeforeTheSummary() throws Exception {
        assumeTrue(PseudoTerminal.available(), "util-linux script(1) is not installed: no pseudo-terminal");
        KAFKA.createTopic("replay-tty", 1);
        // uncompressed, so the share read moves with the replay (a .gz this small is read in one buffer)
        Path file = spool.resolve("cubic-loss.sender.pcap");
        try (InputStream in =
                new GZIPInputStream(Files.newInputStream(TestData.file("tcp/cubic-loss.sender.pcap.gz")))) {
            Files.write(file, in.readAllBytes());
        }
        String agent = "agent packets --bootstrap-servers " + KAFKA.bootstrapServers()
                + " --topic replay-tty --spool-dir " + spool.resolve("tty-spool") + " --pace 2 ";
        // 4.7 s of capture at twice its speed: the bar is redrawn for about 2.4 s
        String tty = PseudoTerminal.run(spool, agent + file, 120);
        assertThat(tty)
                .containsPattern("\\d+% \\[[= >]*\\]")
                .containsPattern("\\(\\d+:\\d\\d:\\d\\d / \\d+:\\d\\d:\\d\\d\\)")
                .containsPattern("[0-9,]+ packets [0-9,]+/s");
        List<String> segments = List.of(tty.split("[\r\n]+"));
        int summary = -1;
        for (int i = 0; i < segments.size(); i++) {
            if (segments.get(i).contains("flowtrace agent: " + file + ": ")) {
                summary = i;
            }
        }
        assertThat(summary).as("summary line in %s", segments).isPositive();
        assertThat(segments.get(summary)).startsWith("flowtrace agent: ");
        // the last bar is followed by a cleared (blank) redraw, before the summary and any log line of
        // the producer's shutdown, and no later line carries bar text
        int lastBar = -1;
        for (int i = 0; i < segments.size(); i++) {
            if (segments.get(i).matches(".*\\d+% \\[[= >]*\\].*")) {
                lastBar = i;
            }
        }
        assertThat(lastBar).isPositive().isLessThan(summary);
        assertThat(segments.get(lastBar + 1)).as("the bar was cleared").isBlank();

        String quiet = PseudoTerminal.run(spool, agent + "-q " + file, 120);
        assertThat(quiet).doesNotContain("%").doesNotContain("flowtrace agent:");
    }

    record Run(int exit, String stderr) {}

    static Run agent(String... args) {
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
