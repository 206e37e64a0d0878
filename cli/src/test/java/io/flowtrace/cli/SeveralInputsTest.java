package io.flowtrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.core.testing.TestData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Several captures on one command line, one of them not a readable capture (missing, a directory,
 * a text file), through the real {@code flowtrace} process: the unreadable one gets one line on
 * stderr and nothing on stdout in every output mode (no {@code # FILE} header, no empty block), the
 * good capture's output is byte for byte what it is when analysed alone, and the exit code is the
 * one {@code --help} gives for "an input could not be read" (1).
 */
class SeveralInputsTest {
    private static final String MISSING = "/nonexistent.pcap";

    @TempDir
    static Path dir;

    private static Path good;
    private static Path other;
    private static Path text;

    @BeforeAll
    static void inputs() throws Exception {
        good = TestData.file("tcp/cubic-loss.sender.pcap.gz");
        other = TestData.file("tcp/cubic-clean.sender.pcap.gz");
        text = dir.resolve("notes.txt");
        Files.writeString(text, "hello\n");
    }

    @ParameterizedTest(name = "analyze {0} GOOD MISSING")
    @ValueSource(strings = {"", "-l", "--json", "--events", "--events --json", "--services", "--services --json"})
    void missingInputGetsOneStderrLineAndNoBlockInEveryMode(String mode) throws Exception {
        FlowtraceProcess.Result alone = run(mode, good.toString());
        assertThat(alone.exit()).isZero();
        assertThat(alone.stdout()).isNotBlank();

        FlowtraceProcess.Result both = run(mode, good.toString(), MISSING).assertNoStackTrace();

        assertThat(both.exit()).as("--help: 1 when an input could not be read").isEqualTo(1);
        assertThat(both.stderrLines()).containsExactly("flowtrace analyze: \"" + MISSING + "\": no such file");
        assertThat(both.stdout()).doesNotContain(MISSING);
        boolean headed = !mode.contains("--json") && !mode.contains("--services");
        // Text modes head each capture's block with its name (tcptrace prints one block per file);
        // JSON Lines and the --services table (one table over every input) have no headers.
        String expected = headed ? "# " + good + System.lineSeparator() + alone.stdout() : alone.stdout();
        assertThat(both.stdout()).isEqualTo(expected);
    }

    @Test
    void unreadableInputsAmongGoodOnesAreSaidInOrderBetweenTheGoodBlocks() throws Exception {
        Path folder = Files.createDirectories(dir.resolve("captures"));
        FlowtraceProcess.Result r = FlowtraceProcess.runInterleaved(
                        "analyze", MISSING, good.toString(), text.toString(), folder.toString(), other.toString())
                .assertNoStackTrace();

        assertThat(r.exit()).isEqualTo(1);
        List<String> lines = r.stdoutLines();
        assertThat(lines)
                .noneMatch(l -> l.startsWith("# " + MISSING))
                .noneMatch(l -> l.startsWith("# " + text))
                .noneMatch(l -> l.startsWith("# " + folder));
        // As a terminal shows them: each line where the run reached that input, stdout flushed
        // before the next input's stderr line, the good captures' summaries after their tables.
        int missingLine = indexOf(lines, "flowtrace analyze: \"" + MISSING + "\": no such file");
        int goodHeader = indexOf(lines, "# " + good);
        int goodSummary = indexOf(lines, "flowtrace analyze: " + good + ": pcap ");
        int textLine = indexOf(lines, "flowtrace analyze: \"" + text + "\": not a pcap or pcapng file");
        int folderLine = indexOf(lines, "flowtrace analyze: \"" + folder + "\" is a directory (folder), not a file");
        int otherHeader = indexOf(lines, "# " + other);
        int otherSummary = indexOf(lines, "flowtrace analyze: " + other + ": pcap ");
        assertThat(List.of(missingLine, goodHeader, goodSummary, textLine, folderLine, otherHeader, otherSummary))
                .isSorted()
                .doesNotHaveDuplicates()
                .allMatch(i -> i >= 0);
        assertThat(missingLine)
                .as("nothing printed before the first input's line")
                .isZero();
        // The good capture's table (its two connections, testdata/tcp/README.md) sits between its header and summary.
        assertThat(lines.subList(goodHeader + 1, goodSummary))
                .filteredOn(l -> l.matches("^\\d+ .*"))
                .hasSize(2);
        // One blank line separates the two blocks on stdout; none is left where the unreadable inputs were.
        assertThat(lines.get(otherHeader - 1)).isEmpty();
        assertThat(folderLine).isEqualTo(otherHeader - 2);
    }

    @Test
    void aCaptureThatWasReadKeepsItsHeaderWhenNoFlowMatched() throws Exception {
        FlowtraceProcess.Result r =
                run("-q --port 80", good.toString(), MISSING, other.toString()).assertNoStackTrace();

        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.stdoutLines()).containsExactly("# " + good, "", "# " + other);
        assertThat(r.stderrLines()).containsExactly("flowtrace analyze: \"" + MISSING + "\": no such file");
    }

    @Test
    void everyInputReadExitsZeroWithAHeaderEach() throws Exception {
        FlowtraceProcess.Result r = run("-q", good.toString(), other.toString()).assertNoStackTrace();

        assertThat(r.exit()).isZero();
        assertThat(r.stderr()).isEmpty();
        assertThat(r.stdoutLines())
                .filteredOn(l -> l.startsWith("# ") && l.contains(".pcap"))
                .containsExactly("# " + good, "# " + other);
    }

    /** {@code analyze -q MODE... FILES...}: quiet, so stderr holds only what went wrong. */
    private static FlowtraceProcess.Result run(String mode, String... files) throws Exception {
        List<String> args = new ArrayList<>(List.of("analyze", "-q"));
        for (String m : mode.split(" ")) {
            if (!m.isEmpty() && !args.contains(m)) {
                args.add(m);
            }
        }
        args.addAll(List.of(files));
        return FlowtraceProcess.run(args.toArray(String[]::new));
    }

    private static int indexOf(List<String> lines, String prefix) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith(prefix)) {
                return i;
            }
        }
        return -1;
    }
}
