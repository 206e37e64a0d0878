package io.flowtrace.cli.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.flowtrace.cli.PseudoTerminal;
import io.flowtrace.core.testing.TestData;
import java.io.BufferedOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Progress of {@code flowtrace analyze} as a user sees it: the real process under util-linux
 * {@code script}, which gives it a pseudo-terminal, with stdout redirected to a file (the common
 * {@code analyze --json big.pcap > out} case, where System.console() is null). The bar shows a
 * percentage and an ETA on the terminal, is cleared before the summary, never reaches stdout, and
 * is absent with -q or when stderr is a file.
 */
class ProgressOnTerminalTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dir;

    private static Path big;

    @BeforeAll
    static void bigCapture() throws Exception {
        assumeTrue(PseudoTerminal.available(), "util-linux script(1) is not installed: no pseudo-terminal");
        byte[] pcap;
        try (InputStream in =
                new GZIPInputStream(Files.newInputStream(TestData.file("tcp/cubic-loss.sender.pcap.gz")))) {
            pcap = in.readAllBytes();
        }
        // The real capture 60 times over, 10 s apart: tens of MB, long enough for several redraws.
        big = dir.resolve("big.pcap");
        ByteBuffer b = ByteBuffer.wrap(pcap).order(ByteOrder.LITTLE_ENDIAN);
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(big), 1 << 20)) {
            out.write(pcap, 0, 24);
            for (int copy = 0; copy < 60; copy++) {
                for (int at = 24; at + 16 <= pcap.length; ) {
                    int incl = b.getInt(at + 8);
                    byte[] header = Arrays.copyOfRange(pcap, at, at + 16);
                    ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN).putInt(0, b.getInt(at) + copy * 10);
                    out.write(header);
                    out.write(pcap, at + 16, incl);
                    at += 16 + incl;
                }
            }
        }
    }

    @Test
    void barWithPercentageAndEtaOnTheTerminalClearedBeforeTheSummaryAndNeverInTheReport() throws Exception {
        Path json = dir.resolve("out.jsonl");
        String tty = underTerminal("analyze --json " + big + " > " + json);
        assertThat(tty)
                .containsPattern("\\d+% \\[[= >]*\\]")
                .containsPattern("\\(\\d+:\\d\\d:\\d\\d / \\d+:\\d\\d:\\d\\d\\)");
        // Each redraw starts with a carriage return; the summary must start a segment of its own, after a
        // blank (cleared) one, not sit behind the last bar.
        List<String> segments = Arrays.asList(tty.split("[\r\n]+"));
        int summary = -1;
        for (int i = 0; i < segments.size(); i++) {
            if (segments.get(i).contains("flowtrace analyze: " + big)) {
                summary = i;
            }
        }
        assertThat(summary).as("summary line in %s", segments).isPositive();
        assertThat(segments.get(summary)).startsWith("flowtrace analyze: ");
        assertThat(segments.get(summary - 1)).as("the bar was cleared").isBlank();
        List<String> lines = Files.readAllLines(json, StandardCharsets.UTF_8);
        // testdata/tcp/cubic-loss.sender.tcptrace.txt: 2 connections, here 60 times
        assertThat(lines).hasSize(120);
        for (String line : lines) {
            assertThat(JSON.readTree(line).isObject()).isTrue();
        }
    }

    @Test
    void quietOrStderrNotATerminalDrawsNoBar() throws Exception {
        String quiet = underTerminal("analyze -q --json " + big + " > /dev/null");
        assertThat(quiet).doesNotContain("%").doesNotContain("\r\r");
        Path err = dir.resolve("stderr.txt");
        underTerminal("analyze --json " + big + " > /dev/null 2> " + err);
        String stderr = Files.readString(err, StandardCharsets.UTF_8);
        assertThat(stderr).doesNotContain("\r").doesNotContain("% [").contains("flowtrace analyze: " + big);
    }

    @Test
    void standardInputShowsARunningCountWithoutAPercentage() throws Exception {
        String tty = underTerminal("analyze --json - < " + big + " > /dev/null");
        // the size of a pipe is not known: MiB read so far and the speed, no percentage or ETA
        assertThat(tty).containsPattern("\\d+/\\? MiB").doesNotContainPattern("\\d+% \\[");
        List<String> segments = Arrays.asList(tty.split("[\r\n]+"));
        int summary = -1;
        for (int i = 0; i < segments.size(); i++) {
            if (segments.get(i).startsWith("flowtrace analyze: -: pcap")) {
                summary = i;
            }
        }
        assertThat(summary).as("summary line in %s", segments).isPositive();
        assertThat(segments.get(summary - 1)).as("the bar was cleared").isBlank();
    }

    @Test
    void reportOnTheSameTerminalStartsOnALineOfItsOwnAfterTheBarIsCleared() throws Exception {
        String tty = underTerminal("analyze " + big);
        assertThat(tty).containsPattern("\\d+% \\[");
        List<String> segments = Arrays.asList(tty.split("[\r\n]+"));
        int header = -1;
        for (int i = 0; i < segments.size() && header < 0; i++) {
            if (segments.get(i).contains("client - server")) {
                header = i;
            }
        }
        assertThat(header).as("table header in %s", segments).isPositive();
        assertThat(segments.get(header)).startsWith("  #  client - server");
        assertThat(segments.get(header - 1))
                .as("the bar was cleared before the report")
                .isBlank();
        // no bar is drawn once the report has started: every later segment is a report or summary line
        for (String later : segments.subList(header, segments.size())) {
            assertThat(later).doesNotContain("% [").doesNotContain("MiB/s");
        }
    }

    @Test
    void jsonStreamedToTheSameTerminalDrawsNoBar() throws Exception {
        String tty = underTerminal("analyze --json " + big);
        // JSON Lines are written while the capture is read: a bar would land inside them
        assertThat(tty).doesNotContain("% [").doesNotContain("MiB/s");
        long objects = tty.lines()
                .filter(l -> l.startsWith("{") && l.contains("\"flow\":{"))
                .count();
        // testdata/tcp/cubic-loss.sender.tcptrace.txt: 2 connections, here 60 times
        assertThat(objects).isEqualTo(120);
    }

    private static String underTerminal(String args) throws Exception {
        return PseudoTerminal.run(dir, args, 180);
    }
}
