package io.flowtrace.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code flowtrace conntrack}: offline tools for conntrack events. */
@Command(
        name = "conntrack",
        mixinStandardHelpOptions = true,
        description = "Conntrack event tools (docs/conntrack.md).",
        subcommands = {ConntrackSizesCommand.class})
final class ConntrackCommand implements Runnable {
    @Override
    public void run() {
        new CommandLine(this).usage(System.err);
    }
}
