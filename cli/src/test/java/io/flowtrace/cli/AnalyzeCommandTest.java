package io.flowtrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code flowtrace analyze --json [--events]} in process, on committed real captures: the output is
 * JSON Lines (one object per line, nothing before or after it), one flow record per connection that
 * tcptrace traced in the same file, and every event names a flow record of the same run.
 */
class AnalyzeCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern TRACED = Pattern.compile("(\\d+) TCP connections? traced");

    @Test
    void flowRecordsAreJsonLinesOnePerConnectionTcptraceTraced() throws Exception {
        for (String c : new String[] {"short-conns", "cubic-loss"}) {
            List<String> lines = analyze("--json", capture(c));
            assertThat(lines).allSatisfy(l -> assertThat(l).startsWith("{").endsWith("}"));
            for (String line : lines) {
                assertThat(JSON.readTree(line).isObject()).isTrue();
            }
            assertThat(lines).as("%s: one record per connection", c).hasSize(tcptraceConnections(c));
        }
    }

    @Test
    void everyEventNamesAFlowRecordOfTheSameRun() throws Exception {
        List<String> lines = analyze("--json", "--events", capture("cubic-loss"));
        Set<String> flows = new HashSet<>();
        List<JsonNode> events = new ArrayList<>();
        for (String line : lines) {
            assertThat(line).startsWith("{").endsWith("}");
            JsonNode n = JSON.readTree(line);
            if (n.has("event")) {
                events.add(n);
            } else {
                flows.add(n.get("flow").get("vantage").asText() + " "
                        + n.get("flow").get("instance").asLong());
            }
        }
        assertThat(events).isNotEmpty();
        for (JsonNode e : events) {
            JsonNode flow = e.get("flow");
            assertThat(flows)
                    .contains(flow.get("vantage").asText() + " "
                            + flow.get("instance").asLong());
            assertThat(flow.get("key").asText())
                    .startsWith(flow.get("vantage").asText() + "|")
                    .contains("10.77.1.2:");
            assertThat(e.get("direction").asText()).isIn("c2s", "s2c");
        }
        // The kernel retransmitted on this connection (testdata/tcp/README.md): each is an event.
        long retransmissionEvents = events.stream()
                .filter(e -> e.get("event").asText().equals("retransmission"))
                .count();
        long counted = 0;
        for (String line : lines) {
            JsonNode n = JSON.readTree(line);
            if (!n.has("event")) {
                counted += n.get("c2s").get("retransmitted_packets").asLong()
                        + n.get("s2c").get("retransmitted_packets").asLong();
            }
        }
        assertThat(retransmissionEvents).isPositive().isEqualTo(counted);
    }

    private static List<String> analyze(String... args) {
        PrintStream saved = System.out;
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(buffer, true, StandardCharsets.UTF_8));
            List<String> all = new ArrayList<>(List.of(args));
            all.add(0, "-q");
            all.add(0, "analyze");
            assertThat(new CommandLine(new FlowtraceCli()).execute(all.toArray(String[]::new)))
                    .isZero();
        } finally {
            System.setOut(saved);
        }
        return buffer.toString(StandardCharsets.UTF_8).lines().toList();
    }

    private static String capture(String name) {
        return testdata("tcp/" + name + ".sender.pcap.gz").toString();
    }

    private static int tcptraceConnections(String name) throws IOException {
        Path plain = testdata("tcp/" + name + ".sender.tcptrace.txt");
        String text;
        if (Files.exists(plain)) {
            text = Files.readString(plain);
        } else {
            try (InputStream in =
                    new GZIPInputStream(Files.newInputStream(testdata("tcp/" + name + ".sender.tcptrace.txt.gz")))) {
                text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
        }
        Matcher m = TRACED.matcher(text);
        assertThat(m.find()).isTrue();
        return Integer.parseInt(m.group(1));
    }

    private static Path testdata(String relative) {
        Path p = Path.of("..", "testdata").resolve(relative);
        return Files.exists(p) ? p : Path.of("testdata").resolve(relative);
    }
}
