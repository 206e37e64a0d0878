package io.flowtrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.flowtrace.core.testing.TestData;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;

/**
 * The text reports through the real {@code flowtrace} process, against tcptrace's report of the same
 * capture (testdata/tcp/CASE.sender.tcptrace.txt[.gz], made by scripts in testdata/tcp/README.md):
 * the same connections in the same order (tcptrace numbers by first packet), the same packet counts,
 * plain labels and units instead of JSON field names.
 */
class TextReportTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern ROW = Pattern.compile("^ *(\\d+)  (\\S+) - (\\S+) +(\\d+\\.\\d{6})  +(.+)$");

    /** One connection of tcptrace's long report. */
    private record Traced(String a, String b, long packetsAb, long packetsBa, long uniqueAb, long rexmtAb) {}

    @Test
    void defaultIsOneLinePerConnectionNumberedByFirstPacketLikeTcptrace() throws Exception {
        List<Traced> traced = tcptrace("short-conns");
        assertThat(traced).hasSize(240);
        FlowtraceProcess.Result r = FlowtraceProcess.run("analyze", "-q", capture("short-conns"));
        assertThat(r.exit()).isZero();
        List<String> rows = CommandLineErrorsTest.tableRows(r);
        assertThat(rows).hasSize(traced.size());
        assertThat(r.stdoutLines()).hasSize(traced.size() + 2); // the header, the rows, one legend line
        for (int i = 0; i < rows.size(); i++) {
            Matcher m = ROW.matcher(rows.get(i));
            assertThat(m.matches()).as(rows.get(i)).isTrue();
            Traced t = traced.get(i);
            assertThat(m.group(1)).isEqualTo(Integer.toString(i + 1));
            assertThat(m.group(2) + " - " + m.group(3)).isEqualTo(t.a() + " - " + t.b());
            String[] cells = m.group(5).trim().split(" {2,}");
            // elapsed, pkts c2s, pkts s2c, data c2s, ...
            assertThat(number(cells[1])).as("packets a->b of %s", t).isEqualTo(t.packetsAb());
            assertThat(number(cells[2])).as("packets b->a of %s", t).isEqualTo(t.packetsBa());
            assertThat(bytes(cells[3]))
                    .as("unique bytes a->b of %s", t)
                    .isCloseTo(t.uniqueAb(), org.assertj.core.data.Percentage.withPercentage(0.5));
        }
        assertThat(r.stdoutLines().get(0))
                .contains("client - server")
                .contains("pkts c2s")
                .contains("RTT s2c");
    }

    @Test
    void sortWithoutTopRanksEveryFlowAndKeepsTheFirstPacketNumbers() throws Exception {
        List<Traced> traced = tcptrace("cubic-loss");
        FlowtraceProcess.Result r = FlowtraceProcess.run("analyze", "-q", "--sort", "bytes", capture("cubic-loss"));
        List<String> rows = CommandLineErrorsTest.tableRows(r);
        assertThat(rows).hasSize(2);
        // tcptrace: connection 2 carried 4,818,981 unique bytes, connection 1 478: 2 comes first, still numbered 2
        assertThat(traced.get(1).uniqueAb()).isGreaterThan(traced.get(0).uniqueAb());
        assertThat(rows.get(0)).startsWith("2  " + traced.get(1).a());
        assertThat(rows.get(1)).startsWith("1  " + traced.get(0).a());
    }

    @Test
    void longReportUsesPlainLabelsUnitsAndTheJsonDirectionNames() throws Exception {
        List<Traced> traced = tcptrace("cubic-loss");
        FlowtraceProcess.Result r = FlowtraceProcess.run("analyze", "-q", "-l", capture("cubic-loss"));
        assertThat(r.exit()).isZero();
        String out = r.stdout();
        assertThat(out)
                .contains("c2s (client>server)")
                .contains("s2c (server>client)")
                .doesNotContain("a2b")
                .doesNotContain("_us")
                .doesNotContain("lt100")
                .doesNotContain("bps")
                .doesNotContain(".0 us")
                .contains("first packet: ")
                .contains("elapsed: ")
                .contains("window scale announced (shift):");
        assertThat(out)
                .startsWith("1: " + traced.get(0).a() + " - " + traced.get(0).b());
        String second = out.substring(out.indexOf("\n2: "));
        Matcher m = Pattern.compile("(?m)^   retransmitted packets: +(\\S+) +(\\S+)$")
                .matcher(second);
        assertThat(m.find()).isTrue();
        assertThat(number(m.group(1))).isEqualTo(traced.get(1).rexmtAb());
        // "none" is "-" everywhere, never -1
        assertThat(out).doesNotContainPattern("\\s-1(\\s|$)");
    }

    @Test
    void eventsAsTextAreOneReadableLinePerEvent() throws Exception {
        List<Traced> traced = tcptrace("cubic-loss");
        FlowtraceProcess.Result r = FlowtraceProcess.run("analyze", "-q", "--events", capture("cubic-loss"));
        List<String> events = r.stdoutLines().stream()
                .filter(l -> l.matches("^ +\\d+\\.\\d{6}  .*"))
                .toList();
        assertThat(events)
                .isNotEmpty()
                .allSatisfy(l -> assertThat(l)
                        .matches(" +\\d+\\.\\d{6}  \\S+ - \\S+  (c2s|s2c)  [a-zA-Z].*")
                        .doesNotContain("timeNanos")
                        .doesNotContain("["));
        long retransmissions =
                events.stream().filter(l -> l.contains("  retransmission ")).count();
        assertThat(retransmissions)
                .isEqualTo(traced.get(0).rexmtAb() + traced.get(1).rexmtAb());
        assertThat(events.stream()
                        .filter(l -> l.contains("  retransmission "))
                        .findFirst()
                        .orElseThrow())
                .containsPattern(
                        "retransmission (fast|rto|tlp|other|spurious \\(sent by \\w+\\)) seq \\d+, [\\d.,]+ k?B");
        // a class is not repeated as its own trigger ("fast (sent by fast)")
        assertThat(events).noneMatch(l -> l.matches(".*retransmission (\\w+) \\(sent by \\1\\).*"));
        // in time order, across the two connections and the analysing threads (a slow-start exit is
        // found a round after the time it is dated at)
        double[] seconds = events.stream()
                .mapToDouble(l -> Double.parseDouble(l.trim().split(" +")[0]))
                .toArray();
        for (int i = 1; i < seconds.length; i++) {
            assertThat(seconds[i]).as("line %d: %s", i, events.get(i)).isGreaterThanOrEqualTo(seconds[i - 1]);
        }
    }

    @Test
    void servicesTableSaysWhatEachColumnIs() throws Exception {
        FlowtraceProcess.Result r = FlowtraceProcess.run("analyze", "-q", "--services", capture("short-conns"));
        assertThat(r.stdoutLines().get(0))
                .contains("service (server)")
                .contains("established")
                .contains("setup p99")
                .contains("SYN retransmits")
                .contains("flows with SYN rtx")
                .contains("synchronised retries");
        // tcptrace: 240 connections, all to the one service
        assertThat(r.stdoutLines().get(1)).matches("10\\.77\\.2\\.2:5206 +240 +240 .*");
    }

    @Test
    void conntrackSizesJsonEndsWithTheBudgetAndTheTableNamesTheTuple() throws Exception {
        Path events = TestData.file("conntrack/v4_plain.events.txt");
        List<String> text = Files.readAllLines(events);
        FlowtraceProcess.Result json = FlowtraceProcess.run("conntrack", "sizes", "--json", events.toString());
        assertThat(json.exit()).isZero();
        List<String> lines = json.stdoutLines();
        JsonNode budget = JSON.readTree(lines.get(lines.size() - 1)).get("budget");
        assertThat(budget).isNotNull();
        assertThat(budget.get("events").asInt()).isEqualTo(lines.size() - 1).isEqualTo(text.size());
        assertThat(budget.get("risk").asText()).isEqualTo("NONE");

        FlowtraceProcess.Result table = FlowtraceProcess.run("conntrack", "sizes", events.toString());
        Matcher first = Pattern.compile("src=(\\S+) dst=(\\S+) sport=(\\d+) dport=(\\d+)")
                .matcher(text.get(0));
        assertThat(first.find()).isTrue();
        assertThat(table.stdoutLines().get(0)).endsWith("tuple (original direction)");
        assertThat(table.stdoutLines().get(1))
                .endsWith(
                        "tcp " + first.group(1) + ":" + first.group(3) + " > " + first.group(2) + ":" + first.group(4));
    }

    private static String capture(String name) {
        return TestData.file("tcp/" + name + ".sender.pcap.gz").toString();
    }

    private static long number(String cell) {
        return Long.parseLong(cell.replace(",", ""));
    }

    /** "10 kB" → 10,000; "4.82 MB" → 4,820,000 (decimal prefixes). */
    private static double bytes(String cell) {
        String[] p = cell.split(" ");
        double v = Double.parseDouble(p[0].replace(",", ""));
        return switch (p[1]) {
            case "B" -> v;
            case "kB" -> v * 1e3;
            case "MB" -> v * 1e6;
            case "GB" -> v * 1e9;
            default -> throw new AssertionError("unit " + p[1]);
        };
    }

    private static List<Traced> tcptrace(String name) throws Exception {
        Path plain = TestData.file("tcp/" + name + ".sender.tcptrace.txt");
        String text;
        if (Files.exists(plain)) {
            text = Files.readString(plain);
        } else {
            try (InputStream in = new GZIPInputStream(
                    Files.newInputStream(TestData.file("tcp/" + name + ".sender.tcptrace.txt.gz")))) {
                text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
        }
        List<Traced> out = new ArrayList<>();
        for (String block : text.split("(?m)^TCP connection \\d+:$")) {
            // tcptrace letters the hosts of connection n as a/b, c/d, ...: the first is the first packet's sender
            Matcher host = Pattern.compile("(?m)^\thost \\w+: +(\\S+)$").matcher(block);
            if (!host.find()) {
                continue;
            }
            String first = host.group(1);
            assertThat(host.find()).isTrue();
            long[] packets = pair(block, "total packets");
            out.add(new Traced(
                    first,
                    host.group(1),
                    packets[0],
                    packets[1],
                    pair(block, "unique bytes sent")[0],
                    pair(block, "rexmt data pkts")[0]));
        }
        return out;
    }

    /** The a->b and b->a values of a "name: x   name: y" row of tcptrace's two-column block. */
    private static long[] pair(String block, String name) {
        Matcher m = Pattern.compile("(?m)^ +" + name + ": +(\\d+) +" + name + ": +(\\d+)")
                .matcher(block);
        if (!m.find()) {
            throw new AssertionError("no '" + name + "' row in tcptrace's block");
        }
        return new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))};
    }
}
