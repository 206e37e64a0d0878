package io.flowtrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.cli.analyze.AnalyzeCommand;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The entry point builds only the subcommand a run names, and that shows nowhere: the usage and
 * version texts and the parse are the ones of the whole command line, which picocli builds from
 * FlowtraceCli's {@code @Command(subcommands = ...)}.
 */
class FlowtraceCliTest {
    private static final CommandLine WHOLE = new CommandLine(new FlowtraceCli());

    @Test
    void knowsTheSubcommandsOfTheAnnotationByTheirNames() {
        Map<String, Class<?>> declared = new HashMap<>();
        for (Class<?> type : FlowtraceCli.class.getAnnotation(Command.class).subcommands()) {
            declared.put(type.getAnnotation(Command.class).name(), type);
        }
        // generate-completion writes the completion of the whole command line, so it is never built alone
        assertThat(declared.remove("generate-completion")).isEqualTo(picocli.AutoComplete.GenerateCompletion.class);
        assertThat(FlowtraceCli.SUBCOMMANDS)
                .isEqualTo(declared)
                .containsOnlyKeys("analyze", "demo", "cluster", "agent", "conntrack");
    }

    @Test
    void buildsOnlyTheSubcommandTheFirstArgumentNames() {
        assertThat(FlowtraceCli.commandLine("analyze", "x.pcap").getSubcommands())
                .containsOnlyKeys("analyze");
        assertThat(FlowtraceCli.commandLine("conntrack", "sizes", "-").getSubcommands())
                .containsOnlyKeys("conntrack");
        assertThat(FlowtraceCli.commandLine("conntrack")
                        .getSubcommands()
                        .get("conntrack")
                        .getSubcommands())
                .containsOnlyKeys("sizes");
    }

    @Test
    void buildsTheWholeCommandLineForHelpVersionNothingOrAMisspeltCommand() {
        for (String[] args : List.of(
                new String[] {"--help"}, new String[] {"--version"}, new String[0], new String[] {"analyse", "x.pcap"
                })) {
            CommandLine cl = FlowtraceCli.commandLine(args);
            assertThat(cl.getSubcommands().keySet())
                    .as("subcommands for %s", Arrays.toString(args))
                    .containsExactly("analyze", "demo", "cluster", "agent", "conntrack", "generate-completion");
            assertThat(usage(cl)).isEqualTo(usage(WHOLE));
        }
    }

    @Test
    void eachSubcommandsHelpAndVersionAreTheOnesOfTheWholeCommandLine() {
        for (List<String> path : List.of(
                List.of("analyze"),
                List.of("demo"),
                List.of("cluster"),
                List.of("agent"),
                List.of("agent", "packets"),
                List.of("agent", "conntrack"),
                List.of("conntrack"),
                List.of("conntrack", "sizes"))) {
            CommandLine lean = FlowtraceCli.commandLine(path.get(0));
            CommandLine whole = WHOLE;
            for (String name : path) {
                lean = lean.getSubcommands().get(name);
                whole = whole.getSubcommands().get(name);
            }
            assertThat(usage(lean)).as("usage of %s", path).isEqualTo(usage(whole));
            assertThat(version(lean)).as("version of %s", path).isEqualTo(version(whole));
            assertThat(lean.getCommandSpec().qualifiedName())
                    .isEqualTo(whole.getCommandSpec().qualifiedName());
        }
    }

    @Test
    void parsesAnAnalyzeLineAsTheWholeCommandLineDoes() {
        String[] args = {"analyze", "--json", "--top", "3", "--sort", "retransmits", "-q", "a.pcap", "b.pcap"};
        List<CommandLine> lean = FlowtraceCli.commandLine(args).parseArgs(args).asCommandLineList();
        List<CommandLine> whole =
                new CommandLine(new FlowtraceCli()).parseArgs(args).asCommandLineList();
        assertThat(lean).hasSameSizeAs(whole).hasSize(2);
        // the parsed values through picocli's model of each command (the option fields are analyze's own)
        CommandSpec a = lean.get(1).getCommandSpec();
        CommandSpec b = whole.get(1).getCommandSpec();
        assertThat(List.<Object>of(a.userObject(), b.userObject())).allMatch(AnalyzeCommand.class::isInstance);
        List<String> files = a.positionalParameters().get(0).getValue();
        assertThat(files).isEqualTo(b.positionalParameters().get(0).getValue()).containsExactly("a.pcap", "b.pcap");
        for (String option : List.of("--json", "-q", "--top", "--sort")) {
            assertThat((Object) a.findOption(option).getValue())
                    .as(option)
                    .isEqualTo(b.findOption(option).getValue());
        }
        assertThat((Object) a.findOption("--top").getValue()).isEqualTo(3);
    }

    private static String usage(CommandLine cl) {
        StringWriter text = new StringWriter();
        cl.usage(new PrintWriter(text), CommandLine.Help.Ansi.OFF);
        return text.toString();
    }

    private static String version(CommandLine cl) {
        StringWriter text = new StringWriter();
        cl.printVersionHelp(new PrintWriter(text), CommandLine.Help.Ansi.OFF);
        return text.toString();
    }
}
