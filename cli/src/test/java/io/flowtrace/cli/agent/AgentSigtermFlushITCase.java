package io.flowtrace.cli.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.agent.testing.CapturedPackets;
import io.flowtrace.avro.PacketEvent;
import io.flowtrace.core.testing.TestData;
import io.flowtrace.testkit.KafkaBroker;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code flowtrace agent packets --pace 0.2 FILE} as a separate process with a linger far longer
 * than the replay, stopped with SIGTERM while it replays: the batches still open then are
 * published before it exits (flush reason "shutdown"), so the topic holds exactly the packets
 * the agent read, each flow's a prefix of the capture's, in order.
 */
class AgentSigtermFlushITCase {
    @RegisterExtension
    static final KafkaBroker KAFKA = new KafkaBroker();

    private static final Pattern SUMMARY = Pattern.compile("([\\d,]+) read, ([\\d,]+) published, ([\\d,]+) spooled");
    private static final Pattern SHUTDOWN = Pattern.compile("batches flushed by:.* shutdown ([\\d,]+);");

    @TempDir
    Path tmp;

    @Test
    void publishesTheOpenBatchesOnSigterm() throws Exception {
        KAFKA.createTopic("sigterm", 2);
        Path file = TestData.file("tcp/cubic-loss.sender.pcap.gz");
        String java = ProcessHandle.current().info().command().orElse("java");
        // 4.7 s of capture at a fifth of its speed: ~23 s; SIGTERM after the first progress line (5 s).
        Process agent = new ProcessBuilder(
                        java,
                        "-cp",
                        System.getProperty("java.class.path"),
                        "io.flowtrace.cli.FlowtraceCli",
                        "agent",
                        "packets",
                        "--bootstrap-servers",
                        KAFKA.bootstrapServers(),
                        "--topic",
                        "sigterm",
                        "--agent-id",
                        "sigterm-it",
                        "--spool-dir",
                        tmp.resolve("spool").toString(),
                        "--pace",
                        "0.2",
                        "--batch-linger-ms",
                        "10000",
                        file.toString())
                .redirectErrorStream(true)
                .start();
        AgentOutput output = AgentOutput.follow(agent);
        output.await("packets read", 60);
        agent.toHandle().destroy(); // SIGTERM
        assertThat(agent.waitFor(60, TimeUnit.SECONDS))
                .as("agent exits after SIGTERM")
                .isTrue();
        output.join();
        assertThat(agent.exitValue()).isIn(0, 143);

        String all = output.all();
        Matcher summary = SUMMARY.matcher(all);
        assertThat(summary.find()).as("summary line").isTrue();
        long published = number(summary.group(2));
        assertThat(number(summary.group(3))).as("spooled").isZero();
        Matcher shutdown = SHUTDOWN.matcher(all);
        assertThat(shutdown.find()).as("batches flushed at shutdown").isTrue();
        assertThat(number(shutdown.group(1))).isPositive();

        Map<String, List<PacketEvent>> expected = CapturedPackets.byFlow(file, "sigterm-it");
        List<ConsumerRecord<byte[], byte[]>> records = KAFKA.readUncommitted("sigterm");
        Map<String, List<PacketEvent>> got = CapturedPackets.byFlow(records);
        assertThat(CapturedPackets.count(got))
                .as("packets in the topic")
                .isEqualTo(published)
                .isPositive()
                .isLessThan(CapturedPackets.count(expected));
        for (Map.Entry<String, List<PacketEvent>> flow : got.entrySet()) {
            List<PacketEvent> capture = expected.get(flow.getKey());
            assertThat(capture).as("flow %s in the capture", flow.getKey()).isNotNull();
            assertThat(flow.getValue())
                    .as("flow %s: a prefix of the capture's packets", flow.getKey())
                    .containsExactlyElementsOf(
                            capture.subList(0, flow.getValue().size()));
        }
    }

    private static long number(String digits) {
        return Long.parseLong(digits.replace(",", ""));
    }
}
