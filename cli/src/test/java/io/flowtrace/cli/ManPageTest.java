package io.flowtrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The man pages the build generates with picocli-codegen's ManPageGenerator (agent/pom.xml, phase
 * process-classes, into target/man) against what the program itself prints: every command that
 * {@code flowtrace --help} lists, and every subcommand its own {@code --help} lists, has a page, and the
 * parent's page lists it among its commands.
 */
class ManPageTest {
    private static final Path MAN = Path.of("target/man");

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
