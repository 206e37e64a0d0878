package io.flowtrace.cli.conntrack;

import io.flowtrace.cli.console.ExitCodes;
import io.flowtrace.cli.console.FlowtraceVersion;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code flowtrace conntrack}: offline tools for conntrack events. */
@Command(
        name = "conntrack",
        mixinStandardHelpOptions = true,
        versionProvider = FlowtraceVersion.class,
        description = "Conntrack event tools (docs/conntrack.md).",
        subcommands = {ConntrackSizesCommand.class})
public final class ConntrackCommand implements Callable<Integer> {
    /** Without a subcommand: the usage on stderr and exit 2, a command line that does nothing being a wrong one. */
    @Override
    public Integer call() {
        new CommandLine(this).usage(System.err);
        return ExitCodes.USAGE;
    }
}
