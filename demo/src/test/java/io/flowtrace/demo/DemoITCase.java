package io.flowtrace.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.flowtrace.cli.FlowtraceCli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code ./flowtrace demo --export-flows F --report D} end to end on the bundled real captures: real
 * KRaft Kafka, real PostgreSQL, the agents' replay code, the job on a MiniCluster. Truth: the
 * {@code flowtrace analyze --json} command itself, run in this JVM over the same files (its own
 * code path, not the demo's), and the conntrack recordings' own length prefixes.
 */
class DemoITCase {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void bundledDemoExportsExactlyWhatAnalyzeReportsAndRendersItsReport(@TempDir Path tmp) throws Exception {
        Path export = tmp.resolve("flows.jsonl");
        Path reportDir = tmp.resolve("report");
        DemoCommand cmd = new DemoCommand();
        new CommandLine(cmd).parseArgs("--export-flows", export.toString(), "--report", reportDir.toString(), "-q");
        Demo.Settings settings = cmd.settings();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (Demo demo = new Demo(settings, new PrintStream(out, true, StandardCharsets.UTF_8), System.err)) {
            Demo.Outcome outcome = demo.run();
            String summary = out.toString(StandardCharsets.UTF_8);
            System.out.println(summary);

            Map<String, String> offline = new TreeMap<>();
            List<JsonNode> openVpn = new java.util.ArrayList<>();
            for (Capture c : settings.captures()) {
                String json = analyzeJson(c);
                offline.putAll(byIdentity(json));
                for (String line : json.split("\n")) {
                    if (!line.isEmpty() && isOpenVpn(JSON.readTree(line))) {
                        openVpn.add(JSON.readTree(line));
                    }
                }
            }
            Map<String, String> exported = byIdentity(Files.readString(export, StandardCharsets.UTF_8));
            assertThat(outcome.exported()).isEqualTo(offline.size());
            assertThat(exported.keySet()).isEqualTo(offline.keySet());
            for (String flow : offline.keySet()) {
                // Text equality: same fields, same order, same number forms as analyze --json.
                assertThat(exported.get(flow)).as("flow %s", flow).isEqualTo(offline.get(flow));
            }

            assertSummaryNumbers(summary, offline, demo.db());
            assertOpenVpnTable(summary, openVpn);
            assertConntrackAgainstRecordings(summary, settings.conntrack());
            ReportInBrowser.assertRendersWithoutErrors(reportDir.resolve("index.html"), tmp);
        }
    }

    /** The numbers in the summary: against analyze's own JSON (independent) and the sink tables. */
    private static void assertSummaryNumbers(String summary, Map<String, String> offline, Db db) throws Exception {
        long packets = 0;
        long retransmits = 0;
        long maxRetransmits = 0;
        long exits = 0;
        long premature = 0;
        for (String line : offline.values()) {
            JsonNode f = JSON.readTree(line);
            long rtx = 0;
            for (String dir : List.of("c2s", "s2c")) {
                packets += f.get(dir).get("packets").asLong();
                rtx += f.get(dir).get("retransmitted_packets").asLong();
                JsonNode ss = f.get(dir).get("slow_start");
                if (!ss.get("exit_cwnd_bytes").isNull()) {
                    exits++;
                    premature += ss.get("premature").asBoolean() ? 1 : 0;
                }
            }
            retransmits += rtx;
            maxRetransmits = Math.max(maxRetransmits, rtx);
        }
        Matcher totals = Pattern.compile(
                        "flows: ([\\d,]+) at (\\d+) vantage points; packets: ([\\d,]+); data bytes: [\\d,]+;"
                                + " retransmitted packets: ([\\d,]+); tcp events: ([\\d,]+)")
                .matcher(summary);
        assertThat(totals.find()).as("totals line in:%n%s", summary).isTrue();
        assertThat(num(totals.group(1))).isEqualTo(offline.size());
        assertThat(num(totals.group(2))).isEqualTo(3);
        assertThat(num(totals.group(3))).isEqualTo(packets);
        assertThat(num(totals.group(4))).isEqualTo(retransmits);
        assertThat(num(totals.group(5)))
                .isEqualTo(db.count("SELECT count(*) FROM tcp_events"))
                .isPositive();

        Matcher top = Pattern.compile(
                        "(?m)^  \\S+/if0\\s+\\S+\\s+\\S+\\s+(\\d+)\\s+\\d+  (\\d+) (\\d+) (\\d+) (\\d+) (\\d+)")
                .matcher(summary);
        assertThat(top.find()).as("top retransmitter row").isTrue();
        assertThat(num(top.group(1))).isEqualTo(maxRetransmits).isPositive();
        long classes = 0;
        for (int g = 2; g <= 6; g++) {
            classes += num(top.group(g));
        }
        assertThat(classes)
                .as("the classes of the top flow add up to its retransmissions")
                .isEqualTo(maxRetransmits);

        Matcher ss = Pattern.compile("slow-start exits: ([\\d,]+) \\(premature: ([\\d,]+)\\)")
                .matcher(summary);
        assertThat(ss.find()).isTrue();
        assertThat(num(ss.group(1))).isEqualTo(exits).isPositive();
        assertThat(num(ss.group(2))).isEqualTo(premature);

        Matcher dead = Pattern.compile("dead letters: ([\\d,]+)").matcher(summary);
        assertThat(dead.find()).isTrue();
        assertThat(num(dead.group(1)))
                .isEqualTo(db.count("SELECT count(*) FROM dead_letters"))
                .isZero();
    }

    private static boolean isOpenVpn(JsonNode line) {
        return line.has("protocol") && line.get("protocol").asText().equals("openvpn");
    }

    /**
     * The OpenVPN setup table of the summary against analyze --json's sessions of the bundled
     * OpenVPN capture, computed here by hand: mean, sample sd (n - 1), nearest-rank p50 and p99 of
     * setup_us, retransmissions per setup.
     */
    private static void assertOpenVpnTable(String summary, List<JsonNode> sessions) {
        // 20 runs of push-100k (testdata/openvpn/README.md), each one session
        assertThat(sessions).hasSize(20);
        long[] setup = sessions.stream()
                .map(s -> s.get("setup").get("setup_us"))
                .filter(v -> !v.isNull())
                .mapToLong(JsonNode::asLong)
                .sorted()
                .toArray();
        double mean = java.util.Arrays.stream(setup).average().orElseThrow();
        double sd = Math.sqrt(java.util.Arrays.stream(setup)
                        .mapToDouble(v -> (v - mean) * (v - mean))
                        .sum()
                / (setup.length - 1));
        long p50 = setup[(int) Math.ceil(0.5 * setup.length) - 1];
        long p99 = setup[(int) Math.ceil(0.99 * setup.length) - 1];
        long rtx = sessions.stream()
                .mapToLong(s -> s.get("c2s").get("retransmits").asLong()
                        + s.get("s2c").get("retransmits").asLong())
                .sum();
        Matcher row = Pattern.compile("(?m)^  ovpn-push-100k/\\S+\\s+(\\S+)\\s+(\\d+)\\s+(\\d+)\\s+([\\d,.]+) ms\\s+"
                        + "([\\d,.]+) ms\\s+([\\d,.]+) ms\\s+([\\d,.]+) ms\\s+([\\d.]+)\\s+([\\d.]+)$")
                .matcher(summary);
        assertThat(row.find()).as("OpenVPN row in:%n%s", summary).isTrue();
        assertThat(row.group(1)).isEqualTo("10.77.2.2:1194");
        assertThat(num(row.group(2))).isEqualTo(20);
        assertThat(num(row.group(3))).isEqualTo(setup.length).isEqualTo(20);
        org.assertj.core.data.Offset<Double> tenthMs = org.assertj.core.data.Offset.offset(0.051);
        assertThat(msOf(row.group(4))).isCloseTo(mean / 1000, tenthMs);
        assertThat(msOf(row.group(5))).isCloseTo(sd / 1000, tenthMs);
        assertThat(msOf(row.group(6))).isCloseTo(p50 / 1000.0, tenthMs);
        assertThat(msOf(row.group(7))).isCloseTo(p99 / 1000.0, tenthMs);
        assertThat(Double.parseDouble(row.group(8)))
                .isCloseTo(rtx / 20.0, org.assertj.core.data.Offset.offset(0.0051))
                .isPositive();
        assertThat(Double.parseDouble(row.group(9))).isZero(); // UDP
    }

    private static double msOf(String text) {
        return Double.parseDouble(text.replace(",", ""));
    }

    /** Per recording: the events and exact bytes of the summary = the count and sum of the file's length prefixes. */
    private static void assertConntrackAgainstRecordings(String summary, List<Capture> recordings) throws Exception {
        for (Capture r : recordings) {
            ByteBuffer bb = ByteBuffer.wrap(Files.readAllBytes(r.file())).order(ByteOrder.LITTLE_ENDIAN);
            long messages = 0;
            long bytes = 0;
            while (bb.remaining() >= 4) {
                int length = bb.getInt();
                bb.position(bb.position() + length);
                messages++;
                bytes += length;
            }
            Matcher m = Pattern.compile(
                            Pattern.quote(r.agentId() + "/conntrack") + "\\s+([\\d,]+) events,\\s+([\\d,]+) B exact")
                    .matcher(summary);
            assertThat(m.find()).as("conntrack line of %s", r.agentId()).isTrue();
            assertThat(num(m.group(1))).isEqualTo(messages);
            assertThat(num(m.group(2))).isEqualTo(bytes);
        }
    }

    /** {@code flowtrace analyze --json --agent-id ID FILE}, the command itself, run in this JVM. */
    private static String analyzeJson(Capture c) {
        PrintStream saved = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            int status = new CommandLine(new FlowtraceCli())
                    .execute(
                            "analyze",
                            "--json",
                            "-q",
                            "--agent-id",
                            c.agentId(),
                            c.file().toString());
            assertThat(status).isZero();
        } finally {
            System.setOut(saved);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }

    private static Map<String, String> byIdentity(String jsonLines) throws Exception {
        Map<String, String> out = new TreeMap<>();
        for (String line : jsonLines.split("\n")) {
            if (line.isEmpty()) {
                continue;
            }
            if (isOpenVpn(JSON.readTree(line))) {
                continue; // an OpenVPN session line: assertOpenVpnTable
            }
            JsonNode flow = JSON.readTree(line).get("flow");
            String id = flow.get("vantage").asText() + " " + flow.get("client").asText() + " "
                    + flow.get("server").asText() + " " + flow.get("instance").asLong();
            assertThat(out.put(id, line)).as("one line per flow: %s", id).isNull();
        }
        return out;
    }

    private static long num(String s) {
        return Long.parseLong(s.replace(",", ""));
    }
}
