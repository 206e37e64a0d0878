package io.flowtrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.testkit.RequiredTool;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The man pages the build generates with picocli-codegen's ManPageGenerator (agent/pom.xml, phase
 * process-classes, into target/man) against what the program itself prints: every command that
 * {@code flowtrace --help} lists, and every subcommand its own {@code --help} lists, has a page, and the
 * parent's page lists it among its commands; and each page, turned into a man(1) page by Debian's
 * {@code asciidoctor -b manpage} (README.md, "Command line") and shown by {@code man -l}, names its
 * command and shows every option its {@code --help} shows, in the synopsis and among the options.
 */
class ManPageTest {
    private static final Path MAN = Path.of("target/man");
    /** An option of a help screen: two or more spaces, then {@code -x, --name} or {@code --name}. */
    private static final Pattern HELP_OPTION = Pattern.compile("^ {2,}(?:(-[a-zA-Z]), )?(--[a-z][a-z-]*)");

    @Test
    void everyCommandTheHelpListsHasAPageListedByItsParent() throws Exception {
        List<String> checked = new ArrayList<>();
        for (String command : commandsOf()) {
            checkPage("flowtrace", command);
            checked.add(command);
            for (String sub : commandsOf(command)) {
                checkPage("flowtrace-" + command, sub);
                checked.add(command + " " + sub);
            }
        }
        // flowtrace --help: analyze, demo, cluster, agent, conntrack, generate-completion; agent: packets,
        // conntrack; conntrack: sizes
        assertThat(checked)
                .contains("analyze", "demo", "cluster", "generate-completion", "agent packets", "conntrack sizes")
                .hasSizeGreaterThanOrEqualTo(9);
        String analyze = Files.readString(MAN.resolve("flowtrace-analyze.adoc"), StandardCharsets.UTF_8);
        assertThat(analyze)
                .contains("= flowtrace-analyze(1)")
                .contains("*--sort*")
                .contains("*--report*");
    }

    @Test
    void everyPageRendersAsAManPageShowingEveryOptionOfItsHelp(@TempDir Path dir) throws Exception {
        String why = "man pages in troff: Debian's asciidoctor and man-db";
        Path asciidoctor = RequiredTool.require("asciidoctor", why);
        Path man = RequiredTool.require("man", why);
        List<String> pages = new ArrayList<>();
        for (String command : commandsOf()) {
            pages.add(command);
            for (String sub : commandsOf(command)) {
                pages.add(command + " " + sub);
            }
        }
        for (String command : pages) {
            FlowtraceProcess.Result help = FlowtraceProcess.run((command + " --help").split(" "));
            // long name -> short letter (null without one): the synopsis shows the short one, as --help does
            Map<String, String> options = new LinkedHashMap<>();
            if (help.exit() == 0) {
                for (String line : help.stdoutLines()) {
                    Matcher m = HELP_OPTION.matcher(line);
                    if (m.find()) {
                        options.put(
                                m.group(2),
                                m.group(1) == null ? null : m.group(1).substring(1));
                    }
                }
            }
            String name = "flowtrace-" + command.replace(' ', '-');
            Path troff = dir.resolve(name + ".1");
            Process convert = new ProcessBuilder(
                            asciidoctor.toString(),
                            "-b",
                            "manpage",
                            "-o",
                            troff.toString(),
                            MAN.resolve(name + ".adoc").toString())
                    .redirectErrorStream(true)
                    .start();
            String warnings = new String(convert.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(convert.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(convert.exitValue()).as(warnings).isZero();
            assertThat(warnings).as("asciidoctor on %s", name).isEmpty();

            ProcessBuilder show = new ProcessBuilder(man.toString(), "-l", troff.toString()).redirectErrorStream(true);
            show.environment().put("MANWIDTH", "100");
            show.environment().put("MANPAGER", "cat");
            show.environment().put("PAGER", "cat");
            Process shown = show.start();
            String text = new String(shown.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(shown.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(shown.exitValue()).as(text).isZero();

            assertThat(text).as(name).contains(name.toUpperCase() + "(1)");
            String nameSection = section(text, "NAME", "SYNOPSIS");
            assertThat(nameSection).as(name).contains(name + " - ");
            String synopsis = section(text, "SYNOPSIS", "DESCRIPTION");
            // demo and cluster are redirects to programs of their own: no options here
            String optionsSection = options.isEmpty() ? "" : section(text, "OPTIONS", null);
            for (var entry : options.entrySet()) {
                String option = entry.getKey();
                String letter = entry.getValue();
                if (letter != null) {
                    // a short flag inside a cluster such as [-hlqV], or one with a value: [-f=EXPR]
                    assertThat(synopsis)
                            .as("%s synopsis shows -%s", name, letter)
                            .containsPattern("\\[-[a-zA-Z]*" + letter + "[a-zA-Z]*\\]|\\[-" + letter + "=");
                } else {
                    assertThat(synopsis)
                            .as("%s synopsis shows %s", name, option)
                            .contains(option);
                }
                assertThat(optionsSection)
                        .as("%s OPTIONS shows %s", name, option)
                        .contains(option);
            }
            // AsciiDoc markup that did not render (an italic's underscore, a bracket it swallowed)
            assertThat(synopsis).as(name).doesNotContain("_").doesNotContain("] ]");
        }
        // flowtrace analyze --help lists 20 options, --host and --report among them: a parse that found
        // none would check nothing
        assertThat(pages).contains("analyze");
    }

    /** The text of a rendered page from the heading {@code from} to the heading {@code to} (or the end). */
    private static String section(String text, String from, String to) {
        int start = text.indexOf("\n" + from + "\n");
        assertThat(start).as("section %s in%n%s", from, text).isNotNegative();
        int end = to == null ? text.length() : text.indexOf("\n" + to + "\n", start);
        return text.substring(start, end < 0 ? text.length() : end);
    }

    private static void checkPage(String parent, String command) throws Exception {
        Path page = MAN.resolve(parent + "-" + command + ".adoc");
        assertThat(page).as("the page of %s %s", parent, command).exists();
        assertThat(Files.readString(page, StandardCharsets.UTF_8)).contains("= " + parent + "-" + command + "(1)");
        assertThat(Files.readString(MAN.resolve(parent + ".adoc"), StandardCharsets.UTF_8))
                .as("%s's page lists %s", parent, command)
                .contains("xref:" + parent + "-" + command + ".adoc[*" + command + "*]::");
    }

    /** The names under "Commands:" of {@code flowtrace [COMMAND] --help}: two spaces, a name, two or more spaces. */
    private static List<String> commandsOf(String... command) throws Exception {
        List<String> args = new ArrayList<>(List.of(command));
        args.add("--help");
        FlowtraceProcess.Result r = FlowtraceProcess.run(args.toArray(String[]::new));
        if (command.length > 0 && r.exit() != 0) {
            // demo and cluster: the launcher runs their own programs; here they are redirects without options
            return List.of();
        }
        assertThat(r.exit()).as(r.stderr()).isZero();
        List<String> out = new ArrayList<>();
        boolean in = false;
        for (String line : r.stdoutLines()) {
            if (line.equals("Commands:")) {
                in = true;
            } else if (in && line.isBlank()) {
                break;
            } else if (in && line.matches("  [a-z][a-z-]*( {2,}.*)?")) {
                out.add(line.trim().split("\\s+")[0]);
            }
        }
        return out;
    }
}
