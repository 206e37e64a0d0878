package io.flowtrace.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code flowtrace agent}: capture agents that publish to Kafka. */
@Command(
        name = "agent",
        mixinStandardHelpOptions = true,
        description = "Capture agents: packets (pcap/pcapng file, stdin, live tcpdump) and conntrack events to Kafka.",
        subcommands = {AgentPacketsCommand.class, AgentConntrackCommand.class})
final class AgentCommand implements Runnable {
    @Override
    public void run() {
        new CommandLine(this).usage(System.err);
    }
}
