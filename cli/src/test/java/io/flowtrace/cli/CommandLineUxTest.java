package io.flowtrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.luben.zstd.ZstdOutputStream;
import io.flowtrace.cli.agent.AgentExit;
import io.flowtrace.core.testing.TestData;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import net.jpountz.lz4.LZ4FrameOutputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a new user meets first, through the real process: the version, a bare {@code flowtrace}, a
 * --flow the capture does not have, a report path that cannot be written, captures compressed as
 * Wireshark reads them (zstd, lz4) and as it does not (xz), and the agent with no Kafka to send to
 * or a broker name that does not resolve. Each is one line with the exit code --help documents.
 */
class CommandLineUxTest {
    @TempDir
    static Path dir;

    private static Path gz;
    private static byte[] pcap;
    private static String plainStdout;

    @BeforeAll
    static void plain() throws Exception {
        gz = TestData.file("tcp/cubic-loss.sender.pcap.gz");
        try (InputStream in = new GZIPInputStream(Files.newInputStream(gz))) {
            pcap = in.readAllBytes();
        }
        Path file = dir.resolve("plain.pcap");
        Files.write(file, pcap);
        FlowtraceProcess.Result r = FlowtraceProcess.run("analyze", "-q", file.toString());
        assertThat(r.exit()).isZero();
        plainStdout = r.stdout();
    }

    @Test
    void versionIsTheBuildsOnEveryCommand() throws Exception {
        // the version the root POM declares for the project
        Matcher m = Pattern.compile("<artifactId>flowtrace-parent</artifactId>\\s*<version>([^<]+)</version>")
                .matcher(Files.readString(Path.of("..", "pom.xml")));
        assertThat(m.find()).isTrue();
        for (List<String> args : List.of(List.of("-V"), List.of("analyze", "-V"), List.of("analyze", "--version"))) {
            FlowtraceProcess.Result r = FlowtraceProcess.run(args.toArray(String[]::new));
            assertThat(r.exit()).as("%s", args).isZero();
            assertThat(r.stdout()).as("%s", args).isEqualTo("flowtrace " + m.group(1) + System.lineSeparator());
        }
    }

    @Test
    void noCommandPrintsTheUsageAndExitsTwo() throws Exception {
        FlowtraceProcess.Result r = FlowtraceProcess.run().assertNoStackTrace();
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.stdout()).isEmpty();
        assertThat(r.stderr())
                .startsWith("Usage: flowtrace ")
                .contains("analyze")
                .contains("agent");
    }

    @Test
    void aFlowTheCaptureDoesNotHaveIsOneLineAndExitOne() throws Exception {
        Path report = dir.resolve("absent.html");
        FlowtraceProcess.Result r = FlowtraceProcess.run(
                        "analyze",
                        "-q",
                        "--report",
                        report.toString(),
                        "--flow",
                        "10.9.9.9:1-10.9.9.8:2",
                        gz.toString())
                .assertNoStackTrace();
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.stderrLines())
                .containsExactly("flowtrace analyze: --report: no flow 10.9.9.9:1-10.9.9.8:2 in \"" + gz
                        + "\"; no report written");
        assertThat(report).doesNotExist();
    }

    @Test
    void aReportPathThatCannotBeWrittenIsOneLineNamingWhy() throws Exception {
        Path file = Files.writeString(dir.resolve("a-file.txt"), "not a directory\n");
        Path report = file.resolve("report.html");
        FlowtraceProcess.Result r = FlowtraceProcess.run("analyze", "-q", "--report", report.toString(), gz.toString())
                .assertNoStackTrace();
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.stderrLines())
                .containsExactly("flowtrace analyze: --report " + report + ": cannot write \"" + file
                        + "\": exists and is not a directory; no report written");
    }

    @Test
    void zstdAndLz4CapturesAreReadAsWiresharkReadsThem() throws Exception {
        Path zst = dir.resolve("c.pcap.zst");
        try (OutputStream out = new ZstdOutputStream(Files.newOutputStream(zst))) {
            out.write(pcap);
        }
        Path lz4 = dir.resolve("c.pcap.lz4");
        try (OutputStream out = new LZ4FrameOutputStream(Files.newOutputStream(lz4))) {
            out.write(pcap);
        }
        for (Path p : List.of(zst, lz4)) {
            FlowtraceProcess.Result r = FlowtraceProcess.run("analyze", "-q", p.toString());
            assertThat(r.exit()).as("%s: %s", p, r.stderr()).isZero();
            assertThat(r.stdout()).as("%s", p).isEqualTo(plainStdout);
        }
        // cut in the middle: the records before the cut, the cut named, exit 1 (as for .gz)
        Path cut = dir.resolve("cut.pcap.zst");
        byte[] whole = Files.readAllBytes(zst);
        Files.write(cut, Arrays.copyOf(whole, whole.length / 2));
        FlowtraceProcess.Result r =
                FlowtraceProcess.run("analyze", "-q", cut.toString()).assertNoStackTrace();
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.stderr()).contains("cut short").contains("the zstd stream ends early or is corrupt");
    }

    @Test
    void xzIsNamedWithWhatToDo() throws Exception {
        // the .xz header magic (the .xz file format, 2.1.1.1): FD 37 7A 58 5A 00
        Path xz = dir.resolve("c.pcap.xz");
        byte[] bytes = new byte[64];
        System.arraycopy(new byte[] {(byte) 0xfd, '7', 'z', 'X', 'Z', 0}, 0, bytes, 0, 6);
        Files.write(xz, bytes);
        FlowtraceProcess.Result r =
                FlowtraceProcess.run("analyze", xz.toString()).assertNoStackTrace();
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.stderrLines())
                .containsExactly("flowtrace analyze: \"" + xz
                        + "\": xz-compressed: decompress it first (xz -dk FILE, or xz -dc FILE | flowtrace analyze -)");
    }

    @Test
    void anUnresolvableBrokerIsOneLineAndExitTwo() throws Exception {
        // .invalid never resolves (RFC 2606 section 2)
        FlowtraceProcess.Result r = FlowtraceProcess.run(
                        "agent",
                        "packets",
                        "--bootstrap-servers",
                        "flowtrace-test.invalid:9092",
                        "--spool-dir",
                        dir.resolve("spool-dns").toString(),
                        gz.toString())
                .assertNoStackTrace();
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.stderrLines())
                .containsExactly("flowtrace agent packets: --bootstrap-servers flowtrace-test.invalid:9092: no host"
                        + " name in it resolves (DNS), so there is no broker to send to or to spool for");
    }

    @Test
    void noBrokerListeningSaysNotDeliveredWithoutTheClientsRetriesAndEndsInTime() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        long started = System.nanoTime();
        // the agent's own logging set-up, as the launcher's class path has it (the test class path
        // carries a test dependency's log4j2 configuration, which comes first)
        FlowtraceProcess.Result r = FlowtraceProcess.run(
                null,
                List.of("-Dlog4j2.configurationFile="
                        + Path.of("target", "classes", "log4j2.xml").toAbsolutePath()),
                "agent",
                "packets",
                "--bootstrap-servers",
                "127.0.0.1:" + closedPort,
                "--shutdown-timeout",
                "1",
                "--spool-dir",
                dir.resolve("spool-down").toString(),
                gz.toString());
        double seconds = (System.nanoTime() - started) / 1e9;
        // the agent's own spooling line names the producer's refusal (TimeoutException): no stack trace
        assertThat(r.stderr()).doesNotContain("\tat ").doesNotContain("Caused by");
        assertThat(r.exit()).as(r.stderr()).isEqualTo(AgentExit.SPOOLED);
        List<String> lines = r.stderrLines();
        assertThat(lines.get(lines.size() - 1)).startsWith("flowtrace agent: NOT DELIVERED: ");
        assertThat(r.stderr()).doesNotContain("NetworkClient").doesNotContain("could not be established");
        // the agent's own: no metadata after the 5 s warm-up, spooling; the shutdown timeout
        assertThat(lines.stream().filter(l -> l.contains(" WARN ")).count()).isLessThanOrEqualTo(3);
        // the replay's own time (summary line): before, the first record waited out --max-block-ms
        // (5 s) after the 5 s metadata warm-up had already found no broker (10.4 s here)
        Matcher summary = Pattern.compile("left in spool; ([\\d.]+) s \\(").matcher(r.stderr());
        assertThat(summary.find()).as(r.stderr()).isTrue();
        assertThat(Double.parseDouble(summary.group(1))).isLessThan(5.0);
        // warm-up, --shutdown-timeout 1 and a JVM start on a loaded machine
        assertThat(seconds).isLessThan(60);
    }

    @Test
    void flowWithoutReportPrintsThatConnectionsBlockAndAnAbsentOneExitsOne() throws Exception {
        // testdata/tcp/cubic-loss.sender.tcptrace.txt: the bulk connection is 10.77.1.2:35534 - 10.77.2.2:5201
        FlowtraceProcess.Result r =
                FlowtraceProcess.run("analyze", "-q", "--flow", "10.77.2.2:5201-10.77.1.2:35534", gz.toString());
        assertThat(r.exit()).as(r.stderr()).isZero();
        assertThat(r.stdout()).contains("10.77.1.2:35534").doesNotContain("10.77.1.2:35526");
        assertThat(r.stdoutLines().size()).as("a -l block, not a table row").isGreaterThan(10);
        FlowtraceProcess.Result absent = FlowtraceProcess.run(
                        "analyze", "-q", "--flow", "10.9.9.9:1-10.9.9.8:2", gz.toString())
                .assertNoStackTrace();
        assertThat(absent.exit()).isEqualTo(1);
        assertThat(absent.stderrLines())
                .containsExactly("flowtrace analyze: --flow: no connection 10.9.9.9:1-10.9.9.8:2 in \"" + gz + "\"");
    }

    @Test
    void csvIsAHeaderOfJsonPathsAndOneRowPerConnection() throws Exception {
        FlowtraceProcess.Result r = FlowtraceProcess.run("analyze", "-q", "-o", "csv", gz.toString());
        assertThat(r.exit()).as(r.stderr()).isZero();
        List<String> lines = r.stdoutLines();
        assertThat(lines).hasSize(3);
        List<String> header = Arrays.asList(lines.get(0).split(",", -1));
        assertThat(header.get(0)).isEqualTo("number");
        int rexmit = header.indexOf("c2s.retransmitted_packets");
        assertThat(rexmit).isPositive();
        for (String row : lines.subList(1, 3)) {
            // no cell of these two connections needs quoting
            assertThat(row.split(",", -1)).hasSameSizeAs(header.toArray());
            // "none" is an empty cell, as in a decimal without samples, never -1
            assertThat(row.split(",", -1)).doesNotContain("-1");
        }
        // testdata/tcp/cubic-loss.sender.tcptrace.txt: "rexmt data pkts" 0 (connection 1), 36 (connection 2)
        assertThat(lines.get(1).split(",", -1)[rexmit]).isEqualTo("0");
        assertThat(lines.get(2).split(",", -1)[rexmit]).isEqualTo("36");
    }

    /**
     * One "none" in the JSON: null, never -1. The first connection of cubic-loss (iperf3's control
     * connection: 7 data packets from the client, 8 from the server, below the 10-segment initial window
     * of RFC 6928) cannot leave slow start in either direction, so its exit time and its exit cwnd are
     * both none.
     */
    @Test
    void jsonSaysNoneWithNullNeverMinusOne() throws Exception {
        FlowtraceProcess.Result r = FlowtraceProcess.run("analyze", "-q", "--json", gz.toString());
        assertThat(r.exit()).as(r.stderr()).isZero();
        List<String> lines = r.stdoutLines();
        // testdata/tcp/cubic-loss.sender.tcptrace.txt: 2 connections
        assertThat(lines).hasSize(2);
        ObjectMapper json = new ObjectMapper();
        for (int i = 0; i < lines.size(); i++) {
            JsonNode flow = json.readTree(lines.get(i));
            List<String> negative = new ArrayList<>();
            negatives(flow, "", negative);
            assertThat(negative).as("connection %d: negative numbers", i + 1).isEmpty();
            for (String dir : List.of("c2s", "s2c")) {
                JsonNode ss = flow.get(dir).get("slow_start");
                assertThat(ss.get("exit_cwnd_bytes").isNull())
                        .as("connection %d %s: exit cwnd none exactly when the exit time is", i + 1, dir)
                        .isEqualTo(ss.get("exit_us").isNull());
                if (i == 0) {
                    assertThat(ss.get("exit_cwnd_bytes").isNull())
                            .as("%s of the control connection", dir)
                            .isTrue();
                    assertThat(ss.get("exit_cwnd_segments").isNull()).isTrue();
                }
            }
        }
    }

    private static void negatives(JsonNode node, String path, List<String> out) {
        if (node.isNumber() && node.asDouble() < 0) {
            out.add(path + "=" + node);
        }
        node.fields().forEachRemaining(e -> negatives(e.getValue(), path + "." + e.getKey(), out));
        if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                negatives(node.get(i), path + "[" + i + "]", out);
            }
        }
    }

    @Test
    void helpDoesNotBreakAnAddressAcrossLines() throws Exception {
        for (List<String> args : List.of(
                List.of("analyze", "--help"),
                List.of("agent", "packets", "--help"),
                List.of("agent", "conntrack", "--help"))) {
            List<String> lines =
                    FlowtraceProcess.run(args.toArray(String[]::new)).stdoutLines();
            for (int i = 1; i < lines.size(); i++) {
                boolean cut = lines.get(i - 1).matches(".*\\d[.:]$")
                        && lines.get(i).trim().matches("^\\d.*");
                assertThat(cut)
                        .as("%s: %s / %s", args, lines.get(i - 1), lines.get(i))
                        .isFalse();
            }
        }
    }

    @Test
    void startColumnWithTopOneIsFromTheCapturesFirstConnectionAsTheLegendSays() throws Exception {
        FlowtraceProcess.Result r = FlowtraceProcess.run("analyze", "-q", "--top", "1", gz.toString());
        assertThat(r.exit()).isZero();
        // testdata/tcp/cubic-loss.sender.tcptrace.txt: first packets 02:07:38.321345 and .322092: 747 µs apart
        assertThat(r.stdoutLines().get(1)).matches(" *2  10\\.77\\.1\\.2:35534 - 10\\.77\\.2\\.2:5201  0\\.000747 .*");
        assertThat(r.stdoutLines().get(2)).startsWith("(start: seconds after the capture's first connection;");
    }

    @Test
    void completionScriptIsPicocliGeneratedFromTheCommands() throws Exception {
        FlowtraceProcess.Result r = FlowtraceProcess.run("generate-completion");
        assertThat(r.exit()).as(r.stderr()).isZero();
        // a bash completion function that knows the subcommands and analyze's options
        assertThat(r.stdout())
                .contains("complete -F")
                .contains("analyze")
                .contains("--sort")
                .contains("--flow");
    }

    @Test
    void sortBySetupPutsTheSlowestHandshakeFirst() throws Exception {
        // testdata/tcp/short-conns: 240 connections with SYN loss, so setup times from ~0.1 ms to seconds
        Path shortConns = TestData.file("tcp/short-conns.sender.pcap.gz");
        FlowtraceProcess.Result r = FlowtraceProcess.run("analyze", "-q", "--sort", "setup", shortConns.toString());
        assertThat(r.exit()).isZero();
        List<String> header = Arrays.asList(r.stdoutLines().get(0).trim().split("  +"));
        int setup = header.indexOf("setup");
        assertThat(setup).isPositive();
        List<Double> seconds = r.stdoutLines().stream()
                .skip(1)
                .filter(l -> l.matches(" *\\d+ .*"))
                .map(l -> l.trim().split("  +"))
                .map(cells -> seconds(cells[setup]))
                .toList();
        assertThat(seconds).hasSize(240);
        for (int i = 1; i < seconds.size(); i++) {
            assertThat(seconds.get(i)).as("row %d", i + 1).isLessThanOrEqualTo(seconds.get(i - 1));
        }
        assertThat(seconds.get(0))
                .as("a SYN was lost: at least the 1 s SYN timeout")
                .isGreaterThan(1.0);
    }

    /** "183 µs", "2.01 ms", "3.00 s" or "-" (no handshake: ranked last) in seconds. */
    private static double seconds(String cell) {
        if (cell.equals("-")) {
            return -1;
        }
        String[] v = cell.split(" ");
        double n = Double.parseDouble(v[0].replace(",", ""));
        return switch (v[1]) {
            case "µs" -> n / 1e6;
            case "ms" -> n / 1e3;
            case "s" -> n;
            default -> throw new AssertionError(cell);
        };
    }
}
