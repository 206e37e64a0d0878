package io.flowtrace.cli.agent;

import io.flowtrace.cli.console.ExitCodes;
import io.flowtrace.cli.console.FlowtraceVersion;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code flowtrace agent}: capture agents that publish to Kafka. */
@Command(
        name = "agent",
        mixinStandardHelpOptions = true,
        versionProvider = FlowtraceVersion.class,
        description = "Capture agents: packets (pcap/pcapng file, stdin, live tcpdump) and conntrack events to Kafka.",
        subcommands = {AgentPacketsCommand.class, AgentConntrackCommand.class})
public final class AgentCommand implements Callable<Integer> {
    /** Without a subcommand: the usage on stderr and exit 2, a command line that does nothing being a wrong one. */
    @Override
    public Integer call() {
        new CommandLine(this).usage(System.err);
        return ExitCodes.USAGE;
    }
}
