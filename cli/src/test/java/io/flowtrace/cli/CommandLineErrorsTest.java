package io.flowtrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.core.testing.TestData;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Bad inputs and bad options through the real {@code flowtrace} process: one clear line naming the
 * file or option and what is wrong, never a stack trace, the readable part of a damaged capture
 * analysed, and the exit code of {@code --help} (0 all read, 1 an input not or only partly read,
 * 2 a bad command line). Record counts come from walking the pcap record headers in the test.
 */
class CommandLineErrorsTest {
    @TempDir
    static Path dir;

    private static Path cleanGz;
    private static byte[] cleanPcap;
    private static FlowtraceProcess.Result clean;

    @BeforeAll
    static void cleanRun() throws Exception {
        cleanGz = TestData.file("tcp/cubic-loss.sender.pcap.gz");
        try (InputStream in = new GZIPInputStream(Files.newInputStream(cleanGz))) {
            cleanPcap = in.readAllBytes();
        }
        clean = FlowtraceProcess.run("analyze", cleanGz.toString());
        assertThat(clean.exit()).isZero();
    }

    @Test
    void directoryIsOneLineNamingItAndExitOne() throws Exception {
        FlowtraceProcess.Result r =
                FlowtraceProcess.run("analyze", dir.toString()).assertNoStackTrace();
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.stderrLines())
                .containsExactly("flowtrace analyze: \"" + dir + "\" is a directory (folder), not a file");
        assertThat(r.stdout()).isEmpty();
    }

    @Test
    void truncatedGzipIsAnalysedUpToTheCutAndSaysCutShort() throws Exception {
        byte[] gz = Files.readAllBytes(cleanGz);
        Path cut = dir.resolve("cut.pcap.gz");
        Files.write(cut, Arrays.copyOf(gz, gz.length / 2));
        byte[] readable = gunzipReadablePart(cut);
        long whole = wholeRecords(readable);
        assertThat(whole).isPositive().isLessThan(wholeRecords(cleanPcap));

        FlowtraceProcess.Result r =
                FlowtraceProcess.run("analyze", cut.toString()).assertNoStackTrace();
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.stderr())
                .contains("\"" + cut + "\" appears to have been cut short in the middle of a packet")
                .contains(String.format("the %,d whole records before it were analysed", whole))
                .contains(String.format("; %,d records,", whole));
        // Both connections had started before the middle of the file: both are reported.
        assertThat(tableRows(r)).hasSize(2);
    }

    @Test
    void truncatedPlainPcapSaysCutShortLikeTshark() throws Exception {
        Path truncated = TestData.file("decoding/tcp4-truncated.pcap");
        // testdata/decoding/tcp4-truncated.txt: 342 whole records, then part of record 343
        FlowtraceProcess.Result r =
                FlowtraceProcess.run("analyze", truncated.toString()).assertNoStackTrace();
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.stderr())
                .contains("appears to have been cut short in the middle of a packet")
                .contains("the 342 whole records before it were analysed");
    }

    @Test
    void garbageAfterTheLastRecordIsAFormatErrorAndTheRecordsBeforeItAreReported() throws Exception {
        Path garbage = dir.resolve("garbage.pcap");
        byte[] junk = new byte[4096];
        new java.util.Random(19).nextBytes(junk);
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.write(cleanPcap);
        b.write(junk);
        Files.write(garbage, b.toByteArray());

        FlowtraceProcess.Result r =
                FlowtraceProcess.run("analyze", garbage.toString()).assertNoStackTrace();
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.stderr())
                .contains("reading stopped")
                .contains("1 format error;")
                .contains(String.format("the %,d records before it were analysed", wholeRecords(cleanPcap)));
        assertThat(r.stdout()).isEqualTo(clean.stdout());
    }

    @Test
    void textFileIsOneLineSayingItIsNotACapture() throws Exception {
        Path text = dir.resolve("notes.txt");
        Files.writeString(text, "hello, these are my notes\n");
        FlowtraceProcess.Result r =
                FlowtraceProcess.run("analyze", text.toString()).assertNoStackTrace();
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.stderrLines()).hasSize(1);
        assertThat(r.stderr()).startsWith("flowtrace analyze: \"" + text + "\": not a pcap or pcapng file");
    }

    @Test
    void missingFileAmongGoodOnesStillReportsTheGoodOnesButExitsOne() throws Exception {
        Path missing = dir.resolve("missing.pcap");
        FlowtraceProcess.Result r = FlowtraceProcess.run("analyze", "-q", missing.toString(), cleanGz.toString())
                .assertNoStackTrace();
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.stderrLines()).containsExactly("flowtrace analyze: \"" + missing + "\": no such file");
        assertThat(tableRows(r)).hasSize(2);
    }

    @Test
    void standardInputIsReadLikeAFile() throws Exception {
        FlowtraceProcess.Result r =
                FlowtraceProcess.run(cleanGz, "analyze", "-").assertNoStackTrace();
        assertThat(r.exit()).isZero();
        assertThat(r.stdout()).isEqualTo(clean.stdout());
    }

    @Test
    void filterThatMatchesNothingSaysHowManyFlowsItSaw() throws Exception {
        FlowtraceProcess.Result r = FlowtraceProcess.run("analyze", "--port", "80", cleanGz.toString())
                .assertNoStackTrace();
        assertThat(r.exit()).isZero();
        assertThat(r.stdout()).isEmpty();
        // testdata/tcp/cubic-loss.sender.tcptrace.txt: "2 TCP connections traced"
        assertThat(r.stderr()).contains("0 of 2 flows matched --port 80");
    }

    @Test
    void filterThatMatchesNothingOn240ConnectionsSaysZeroOf240() throws Exception {
        FlowtraceProcess.Result r = FlowtraceProcess.run(
                        "analyze",
                        "--port",
                        "80",
                        TestData.file("tcp/short-conns.sender.pcap.gz").toString())
                .assertNoStackTrace();
        assertThat(r.exit()).isZero();
        assertThat(r.stdout()).isEmpty();
        // testdata/tcp/short-conns.sender.tcptrace.txt.gz: "240 TCP connections traced", all to port 5206
        assertThat(r.stderr()).contains("; 0 of 240 flows matched --port 80;");
    }

    @Test
    void standardInputGetsOnlyTheSummaryLineOnStderr() throws Exception {
        // the capture has 4 non-TCP packets (IPv6 multicast): no reason to speak of OpenVPN on a pipe
        FlowtraceProcess.Result r =
                FlowtraceProcess.run(cleanGz, "analyze", "-").assertNoStackTrace();
        assertThat(r.exit()).isZero();
        assertThat(r.stderrLines()).hasSize(1);
        assertThat(r.stderrLines().get(0)).startsWith("flowtrace analyze: -: pcap (");
    }

    @Test
    void openVpnAskedForOnStandardInputSaysItNeedsAFile() throws Exception {
        FlowtraceProcess.Result r = FlowtraceProcess.run(cleanGz, "analyze", "--openvpn-port", "1194", "-")
                .assertNoStackTrace();
        assertThat(r.exit()).isZero();
        assertThat(r.stderrLines()).hasSize(2);
        assertThat(r.stderrLines().get(0))
                .isEqualTo("flowtrace analyze: -: OpenVPN sessions need a file (standard input is read once)");
        assertThat(r.stderrLines().get(1)).startsWith("flowtrace analyze: -: pcap (");
    }

    @Test
    void reportOfStandardInputIsRefusedAsABadCommandLine() throws Exception {
        FlowtraceProcess.Result r = FlowtraceProcess.run(
                        cleanGz, "analyze", "--report", dir.resolve("r.html").toString(), "-")
                .assertNoStackTrace();
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.stderrLines().get(0))
                .isEqualTo("flowtrace analyze: --report reads the capture again to draw it: give exactly one capture"
                        + " file, not standard input");
        assertThat(Files.exists(dir.resolve("r.html"))).isFalse();
    }

    @Test
    void reportOfAFlowTheCaptureDoesNotHaveSaysSoAndWritesNothing() throws Exception {
        Path page = dir.resolve("none.html");
        FlowtraceProcess.Result r = FlowtraceProcess.run(
                        "analyze",
                        "-q",
                        "--report",
                        page.toString(),
                        "--flow",
                        "10.0.0.1:1-10.0.0.2:2",
                        cleanGz.toString())
                .assertNoStackTrace();
        assertThat(r.exit())
                .as("README's exit codes: 1 when --flow found no such connection")
                .isEqualTo(1);
        assertThat(r.stderrLines())
                .containsExactly("flowtrace analyze: --report: no flow 10.0.0.1:1-10.0.0.2:2 in \"" + cleanGz
                        + "\"; no report written");
        assertThat(Files.exists(page)).isFalse();
    }

    @ParameterizedTest
    @CsvSource({"FD77:0001:0000:0000:0000:0000:0000:0002", "fd77:1:0::2", "[fd77:1::2]", "fd77::/16", "fd77:2::/32"})
    void hostMatchesAnIpv6AddressInAnySpellingAndNetworks(String host) throws Exception {
        // testdata/tcp/ipv6-loss.sender.tcptrace.txt: 2 connections between fd77:1::2 and fd77:2::2
        FlowtraceProcess.Result r = FlowtraceProcess.run(
                        "analyze",
                        "--host",
                        host,
                        TestData.file("tcp/ipv6-loss.sender.pcap.gz").toString())
                .assertNoStackTrace();
        assertThat(r.exit()).isZero();
        assertThat(tableRows(r)).hasSize(2);
        assertThat(r.stderr()).contains("2 of 2 flows matched --host " + host);
    }

    @Test
    void hostOfAnotherNetworkMatchesNothing() throws Exception {
        FlowtraceProcess.Result r = FlowtraceProcess.run(
                        "analyze",
                        "--host",
                        "fd77:3::/32",
                        TestData.file("tcp/ipv6-loss.sender.pcap.gz").toString())
                .assertNoStackTrace();
        assertThat(r.exit()).isZero();
        assertThat(r.stdout()).isEmpty();
        assertThat(r.stderr()).contains("0 of 2 flows matched --host fd77:3::/32");
    }

    @Test
    void pcapGivenToConntrackSizesIsRefusedInOneLine() throws Exception {
        Path pcap = dir.resolve("plain.pcap");
        Files.write(pcap, cleanPcap);
        FlowtraceProcess.Result r =
                FlowtraceProcess.run("conntrack", "sizes", pcap.toString()).assertNoStackTrace();
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.stderrLines())
                .containsExactly("flowtrace conntrack sizes: \"" + pcap
                        + "\" is a packet capture (pcap), not conntrack -E output; flowtrace analyze reads captures");
        assertThat(r.stdout()).isEmpty();
    }

    @Test
    void gzipCompressedPcapGivenToConntrackSizesIsRefusedInOneLine() throws Exception {
        FlowtraceProcess.Result r =
                FlowtraceProcess.run("conntrack", "sizes", cleanGz.toString()).assertNoStackTrace();
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.stderrLines())
                .containsExactly("flowtrace conntrack sizes: \"" + cleanGz
                        + "\" is a gzip-compressed packet capture (pcap), not conntrack -E output;"
                        + " flowtrace analyze reads captures");
    }

    @Test
    void gzipCompressedConntrackTextIsReadLikeThePlainText() throws Exception {
        Path text = TestData.file("conntrack/v4_plain.events.txt");
        Path gz = dir.resolve("v4_plain.events.txt.gz");
        try (java.io.OutputStream out = new java.util.zip.GZIPOutputStream(Files.newOutputStream(gz))) {
            out.write(Files.readAllBytes(text));
        }
        FlowtraceProcess.Result plain = FlowtraceProcess.run("conntrack", "sizes", text.toString());
        FlowtraceProcess.Result compressed =
                FlowtraceProcess.run("conntrack", "sizes", gz.toString()).assertNoStackTrace();
        assertThat(compressed.exit()).isZero();
        assertThat(compressed.stdout()).isNotEmpty().isEqualTo(plain.stdout());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {"directory|' is a directory (folder), not a file'", "missing|': no such file'"})
    void directoryOrMissingFileGivenToConntrackSizesIsOneLine(String kind, String why) throws Exception {
        Path input = kind.equals("directory") ? dir : dir.resolve("no-such-events.txt");
        FlowtraceProcess.Result r =
                FlowtraceProcess.run("conntrack", "sizes", input.toString()).assertNoStackTrace();
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.stderrLines()).containsExactly("flowtrace conntrack sizes: \"" + input + "\"" + why);
        assertThat(r.stdout()).isEmpty();
    }

    @Test
    void binaryFileGivenToConntrackSizesIsNotText() throws Exception {
        Path bin = TestData.file("conntrack/v4_plain.nl.bin");
        FlowtraceProcess.Result r =
                FlowtraceProcess.run("conntrack", "sizes", bin.toString()).assertNoStackTrace();
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.stderr()).contains("is not text: this is not conntrack -E output");
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "--port|70000|--port must be a TCP port, 0-65535, not 70000",
                "--port|-1|--port must be a TCP port, 0-65535, not -1",
                "--host|notanip|--host 'notanip' is not an IPv4 or IPv6 address",
                "--host|10.0.0.0/33|prefix length 33 is longer than the 32 bits",
                "--host|fd00::1::2|--host 'fd00::1::2' is not an IPv4 or IPv6 address",
                "--top|0|--top must be a positive number of flows, not 0",
                "--top|-3|--top must be a positive number of flows, not -3",
                "--idle-timeout|-5|--idle-timeout must be a positive number of seconds, not -5",
                "--threads|0|--threads must be 1-256 analysing threads, not 0",
                "--threads|100000|--threads must be 1-256 analysing threads, not 100000",
                "--sort|foo|--sort must be one of retransmits, bytes, packets, duration, rtt, setup, not 'foo'",
                "--flow|10.0.0.1:1|--flow must be CLIENT-SERVER as the report prints it"
            })
    void badOptionValueIsOneLineWithTheProgramNameAndExitTwo(String option, String value, String message)
            throws Exception {
        FlowtraceProcess.Result r = FlowtraceProcess.run("analyze", option, value, cleanGz.toString())
                .assertNoStackTrace();
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.stderrLines()).hasSize(2);
        assertThat(r.stderrLines().get(0)).startsWith("flowtrace analyze: ").contains(message);
        assertThat(r.stderrLines().get(1)).isEqualTo("Try 'flowtrace analyze --help' for more information.");
        assertThat(r.stdout()).isEmpty();
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "--rcvbuf|-1|--rcvbuf must be a positive number of bytes, not -1",
                "--rcvbuf|0|--rcvbuf must be a positive number of bytes, not 0",
                "--secctx-length|-2|--secctx-length must be 0 or more, not -2"
            })
    void badConntrackOptionIsOneLineAndExitTwo(String option, String value, String message) throws Exception {
        FlowtraceProcess.Result r = FlowtraceProcess.run(
                        "conntrack",
                        "sizes",
                        option,
                        value,
                        TestData.file("conntrack/v4_plain.events.txt").toString())
                .assertNoStackTrace();
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.stderrLines())
                .containsExactly(
                        "flowtrace conntrack sizes: " + message,
                        "Try 'flowtrace conntrack sizes --help' for more information.");
    }

    @Test
    void helpDocumentsTheExitCodes() throws Exception {
        FlowtraceProcess.Result r = FlowtraceProcess.run("analyze", "--help");
        assertThat(r.exit()).isZero();
        assertThat(r.stdout())
                .contains("Usage: flowtrace analyze")
                .contains("Exit codes:")
                .containsPattern("(?m)^  0 +every input was read to its end")
                .containsPattern("(?m)^  1 +an input could not be read, or only in part")
                .containsPattern("(?m)^  2 +invalid command line");
    }

    /** Table rows of the default report: the lines that start with a flow number. */
    static java.util.List<String> tableRows(FlowtraceProcess.Result r) {
        return r.stdoutLines().stream().filter(l -> l.matches("^ *\\d+  .*")).toList();
    }

    /** What a reader gets from a cut gzip file before the inflater runs out of input. */
    private static byte[] gunzipReadablePart(Path gz) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[8192];
        try (InputStream in = new GZIPInputStream(Files.newInputStream(gz))) {
            for (int n; (n = in.read(buf)) > 0; ) {
                out.write(buf, 0, n);
            }
        } catch (EOFException expected) {
            // "Unexpected end of ZLIB input stream": the file ends here
        }
        return out.toByteArray();
    }

    /** Whole records in a pcap image: the 24-byte file header, then (16-byte header + incl_len) each. */
    static long wholeRecords(byte[] pcap) {
        ByteBuffer b = ByteBuffer.wrap(pcap);
        int magic = b.order(ByteOrder.LITTLE_ENDIAN).getInt(0);
        b.order(magic == 0xa1b2c3d4 || magic == 0xa1b23c4d ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN);
        long n = 0;
        int at = 24;
        while (at + 16 <= pcap.length) {
            long incl = Integer.toUnsignedLong(b.getInt(at + 8));
            if (at + 16 + incl > pcap.length) {
                break;
            }
            at += 16 + (int) incl;
            n++;
        }
        return n;
    }

    static String utf8(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
