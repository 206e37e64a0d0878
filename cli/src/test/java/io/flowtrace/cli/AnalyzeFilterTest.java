package io.flowtrace.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.flowtrace.core.testing.TestData;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code analyze -f EXPR} through the real process against tcpdump on the committed captures: the
 * packets tcpdump's {@code -r FILE EXPR} keeps are the packets analysed (their count), and the
 * report equals the report of tcpdump's own filtered copy ({@code tcpdump -r FILE -w OUT EXPR}), so
 * which packets an expression means is decided by tcpdump, not by the code under test. Bad
 * expressions get libpcap's message, the one tcpdump prints, on one line with exit code 2.
 */
class AnalyzeFilterTest {
    private static final Pattern MATCHED = Pattern.compile("; ([0-9,]+) records, ([0-9,]+) matched -f '");

    @TempDir
    static Path dir;

    @BeforeAll
    static void needsTcpdump() {
        assumeTrue(
                Files.isExecutable(Path.of("/usr/bin/tcpdump")) || Files.isExecutable(Path.of("/usr/sbin/tcpdump")),
                "tcpdump is not installed (apt-get install tcpdump): it decides which packets an expression matches");
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "tcp/short-conns.sender.pcap.gz | tcp[tcpflags] & tcp-syn != 0",
                "tcp/short-conns.sender.pcap.gz | portrange 35100-35199",
                "tcp/cubic-loss.sender.pcap.gz  | greater 1000",
                "tcp/cubic-loss.sender.pcap.gz  | src host 10.77.2.2",
                "decoding/tcp4-sll.pcap         | tcp and src port 5001",
                "decoding/raw-ip.pcap           | ip6 and tcp",
                "decoding/vlan-8021q.pcap       | vlan and tcp[tcpflags] & tcp-fin != 0",
                "decoding/tcp6-sack.pcap        | ip6 and len > 1000"
            })
    void analysesExactlyThePacketsTcpdumpKeeps(String capture, String expression) throws Exception {
        Path file = plain(TestData.file(capture));
        Path kept = dir.resolve("kept-" + Math.abs((capture + expression).hashCode()) + ".pcap");
        tcpdump("-r", file.toString(), "-w", kept.toString(), expression);
        long tcpdumpCount = tcpdump("-n", "-r", file.toString(), expression).size();
        long all = tcpdump("-n", "-r", file.toString()).size();
        assertThat(tcpdumpCount)
                .as("the expression keeps some packets, not all")
                .isPositive()
                .isLessThan(all);

        FlowtraceProcess.Result filtered = FlowtraceProcess.run("analyze", "--json", "-f", expression, file.toString())
                .assertNoStackTrace();
        FlowtraceProcess.Result ofTcpdumpsCopy = FlowtraceProcess.run("analyze", "--json", kept.toString());

        assertThat(filtered.exit()).isZero();
        Matcher m = MATCHED.matcher(filtered.stderr());
        assertThat(m.find()).as(filtered.stderr()).isTrue();
        assertThat(number(m.group(1))).isEqualTo(all);
        assertThat(number(m.group(2))).isEqualTo(tcpdumpCount);
        assertThat(filtered.stdoutLines()).isNotEmpty().containsExactlyElementsOf(ofTcpdumpsCopy.stdoutLines());
    }

    @Test
    void pcapngWithTwoInterfacesCountsWhatTcpdumpCounts() throws Exception {
        // tcpdump -w would write one interface only, so here the count of kept packets is compared
        Path file = TestData.file("decoding/tcp4-2if.pcapng");
        String expression = "src port 5001";
        long tcpdumpCount = tcpdump("-n", "-r", file.toString(), expression).size();

        FlowtraceProcess.Result r = FlowtraceProcess.run("analyze", "--json", "-f", expression, file.toString())
                .assertNoStackTrace();
        assertThat(r.exit()).isZero();
        Matcher m = MATCHED.matcher(r.stderr());
        assertThat(m.find()).isTrue();
        assertThat(number(m.group(2))).isEqualTo(tcpdumpCount).isPositive();
        long packets = 0;
        for (String line : r.stdoutLines()) {
            assertThat(line).contains("\"c2s\":{\"packets\":0,"); // only the server's side is kept
            packets += number(line.replaceAll(".*\"s2c\":\\{\"packets\":([0-9]+),.*", "$1"));
        }
        assertThat(packets).isEqualTo(tcpdumpCount);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {"tcp port", "host 10.1.2.300", "port 80 and and", "tcp[tcpflags] & tcp-sin != 0"})
    void aBadExpressionIsLibpcapsOneLineAndExitTwo(String expression) throws Exception {
        Path file = TestData.file("decoding/tcp4-sll.pcap");
        List<String> tcpdumpSays = tcpdumpErrors("-r", file.toString(), expression);
        assertThat(tcpdumpSays).isNotEmpty();
        String why = tcpdumpSays.get(tcpdumpSays.size() - 1).replaceFirst("^tcpdump: ", "");

        FlowtraceProcess.Result r = FlowtraceProcess.run("analyze", "-f", expression, file.toString())
                .assertNoStackTrace();
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.stdout()).isEmpty();
        assertThat(r.stderrLines().get(0)).isEqualTo("flowtrace analyze: -f '" + expression + "': " + why);
    }

    @Test
    void aFilterThatMatchesNothingSaysSo() throws Exception {
        Path file = TestData.file("decoding/tcp4-sll.pcap");
        FlowtraceProcess.Result r =
                FlowtraceProcess.run("analyze", "-f", "udp", file.toString()).assertNoStackTrace();
        assertThat(r.exit()).isZero();
        assertThat(r.stderr()).contains("570 records, 0 matched -f 'udp', 0 TCP; 0 flows");
    }

    @Test
    void withoutLibpcapTheFilterIsOneLineSayingWhatToInstall() throws Exception {
        Path file = TestData.file("decoding/tcp4-sll.pcap");
        FlowtraceProcess.Result r = FlowtraceProcess.run(
                        null,
                        List.of("-Dflowtrace.libpcap=" + dir.resolve("no-libpcap.so")),
                        "analyze",
                        "-f",
                        "tcp",
                        file.toString())
                .assertNoStackTrace();
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.stdout()).isEmpty();
        assertThat(r.stderrLines().get(0))
                .startsWith("flowtrace analyze: -f needs libpcap, which could not be loaded (")
                .contains("no-libpcap.so")
                .endsWith("| flowtrace analyze -");
    }

    @Test
    void anExpressionTheCapturesLinkTypeCannotTakeNamesTheFileAndExitsOne() throws Exception {
        // compiles for Ethernet (checked first), not for raw IP: as tcpdump says on this file
        Path file = TestData.file("decoding/raw-ip.pcap");
        List<String> tcpdumpSays = tcpdumpErrors("-r", file.toString(), "ether host 02:00:00:00:00:01");
        String why = tcpdumpSays.get(tcpdumpSays.size() - 1).replaceFirst("^tcpdump: ", "");

        FlowtraceProcess.Result r = FlowtraceProcess.run(
                        "analyze", "-f", "ether host 02:00:00:00:00:01", file.toString())
                .assertNoStackTrace();
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.stderrLines().get(0))
                .isEqualTo("flowtrace analyze: \"" + file + "\": -f 'ether host 02:00:00:00:00:01': " + why
                        + " (link type 101)");
    }

    private static long number(String withSeparators) {
        return Long.parseLong(withSeparators.replace(",", ""));
    }

    /** The capture uncompressed (tcpdump reads plain pcap/pcapng only). */
    private static Path plain(Path capture) throws IOException {
        if (!capture.toString().endsWith(".gz")) {
            return capture;
        }
        Path out = dir.resolve(capture.getFileName().toString().replaceFirst("\\.gz$", ""));
        if (!Files.exists(out)) {
            try (InputStream in = new GZIPInputStream(Files.newInputStream(capture))) {
                Files.write(out, in.readAllBytes());
            }
        }
        return out;
    }

    /** tcpdump's stdout lines; fails the test when tcpdump fails. */
    private static List<String> tcpdump(String... args) throws IOException, InterruptedException {
        Result r = runTcpdump(args);
        assertThat(r.exit)
                .as("tcpdump %s: %s", String.join(" ", args), r.stderr)
                .isZero();
        return r.stdout;
    }

    /** tcpdump's stderr lines of a run that must fail. */
    private static List<String> tcpdumpErrors(String... args) throws IOException, InterruptedException {
        Result r = runTcpdump(args);
        assertThat(r.exit).isNotZero();
        return r.stderrLines;
    }

    private record Result(int exit, List<String> stdout, String stderr, List<String> stderrLines) {}

    private static Result runTcpdump(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("tcpdump"));
        command.addAll(List.of(args));
        Path out = Files.createTempFile(dir, "tcpdump", ".out");
        Path err = Files.createTempFile(dir, "tcpdump", ".err");
        Process p = new ProcessBuilder(command)
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String stderr = Files.readString(err, StandardCharsets.UTF_8);
        List<String> errors =
                stderr.lines().filter(l -> !l.startsWith("reading from file")).toList();
        return new Result(p.exitValue(), Files.readAllLines(out, StandardCharsets.UTF_8), stderr, errors);
    }
}
