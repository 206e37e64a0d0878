package io.flowtrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.core.testing.TestData;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code --help} of the real process against README.md: every option a README example of
 * {@code ./flowtrace analyze} or {@code conntrack sizes} uses is one --help documents, the defaults
 * and examples a new user needs (-l, -f, --report, -q, the exit codes) are there, and every command
 * answers --help with exit 0, documenting the options the README's examples give it.
 */
class HelpAndReadmeTest {
    private static final Pattern OPTION = Pattern.compile("(?<![\\w'/-])(--?[a-zA-Z][\\w-]*)");

    @Test
    void everyOptionTheReadmeShowsForAnalyzeIsInItsHelp() throws Exception {
        FlowtraceProcess.Result help = FlowtraceProcess.run("analyze", "--help");
        assertThat(help.exit()).isZero();
        List<String> used = readmeOptions("./flowtrace analyze ");
        assertThat(used).contains("-l", "--json", "--events", "--report", "--flow", "-f", "--top", "--sort", "--host");
        for (String option : used) {
            assertThat(help.stdout()).as("analyze --help documents %s", option).containsPattern(optionColumn(option));
        }
    }

    @Test
    void analyzeHelpShowsTheDefaultsAndExamplesOfANewUsersFirstRuns() throws Exception {
        String help = FlowtraceProcess.run("analyze", "--help").stdout();
        assertThat(help).containsPattern("(?m)^Usage: flowtrace analyze ").containsPattern(optionColumn("-q"));
        // picocli wraps long lines at the terminal's width: phrases are compared with white space folded
        assertThat(flat(help))
                .contains("One line per connection by default")
                .contains("-l for every figure")
                .contains(" flowtrace analyze -l ")
                .contains(" flowtrace analyze -f '")
                .contains(" flowtrace analyze --report report.html")
                .contains("-q, --quiet no progress or summary on stderr")
                .contains("end established flows idle this long (default: 300)")
                .contains("(default: by first packet; with --top: retransmits)")
                .contains("Exit codes:");
    }

    @Test
    void conntrackSizesHelpDocumentsItsOptionsDefaultsAndExitCodes() throws Exception {
        FlowtraceProcess.Result help = FlowtraceProcess.run("conntrack", "sizes", "--help");
        assertThat(help.exit()).isZero();
        assertThat(help.stdout())
                .containsPattern("(?m)^Usage: flowtrace conntrack sizes ")
                .containsPattern("(?m)^  0 +every line was read")
                .containsPattern("(?m)^  1 +the input could not be read")
                .containsPattern("(?m)^  2 +invalid command line");
        assertThat(flat(help.stdout()))
                .contains("conntrack -E -o timestamp,extended,id,ktimestamp | flowtrace conntrack sizes -")
                .contains("(default: 2097152, conntrackd's)");
        for (String option : readmeOptions("./flowtrace conntrack sizes ")) {
            assertThat(help.stdout()).containsPattern(optionColumn(option));
        }
    }

    @Test
    void everyCommandAnswersHelp() throws Exception {
        FlowtraceProcess.Result top = FlowtraceProcess.run("--help");
        assertThat(top.exit()).isZero();
        assertThat(top.stdout())
                .contains("analyze")
                .contains("conntrack")
                .contains("agent")
                .contains("demo")
                .contains("cluster");
        for (String[] command :
                new String[][] {{"analyze"}, {"conntrack", "sizes"}, {"agent", "packets"}, {"agent", "conntrack"}}) {
            List<String> args = new ArrayList<>(List.of(command));
            args.add("--help");
            FlowtraceProcess.Result r = FlowtraceProcess.run(args.toArray(String[]::new));
            assertThat(r.exit()).as(String.join(" ", args)).isZero();
            assertThat(r.stdout()).startsWith("Usage: flowtrace " + String.join(" ", command) + " ");
            assertThat(r.stderr()).isEmpty();
            for (String option : readmeOptions("./flowtrace " + String.join(" ", command) + " ")) {
                assertThat(r.stdout())
                        .as("%s --help documents %s", String.join(" ", command), option)
                        .containsPattern(optionColumn(option));
            }
        }
    }

    private static String flat(String text) {
        return text.replaceAll("\\s+", " ");
    }

    /** The option at the start of a --help option row ("  -l, --long  ..." or "      --json ..."). */
    private static String optionColumn(String option) {
        return "(?m)^ +(-\\w, )?" + Pattern.quote(option) + "[ =,]";
    }

    /** Options used on the README's command lines that start with {@code prefix} (after any pipe). */
    private static List<String> readmeOptions(String prefix) throws Exception {
        Path readme = TestData.file("../README.md");
        List<String> out = new ArrayList<>();
        for (String line : Files.readAllLines(readme, StandardCharsets.UTF_8)) {
            int at = line.indexOf(prefix);
            if (at < 0) {
                continue;
            }
            String command = line.substring(at + prefix.length()).replaceFirst("\\s+#.*$", "");
            command = command.replaceAll("'[^']*'", "''").replaceAll("`.*$", "");
            Matcher m = OPTION.matcher(command);
            while (m.find()) {
                if (!m.group(1).equals("-") && !out.contains(m.group(1))) {
                    out.add(m.group(1));
                }
            }
        }
        return out;
    }
}
