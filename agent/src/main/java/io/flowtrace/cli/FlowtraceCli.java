package io.flowtrace.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code flowtrace} command: one entry point, one subcommand per task. */
@Command(name = "flowtrace", mixinStandardHelpOptions = true, version = "flowtrace 0.1.0",
        description = "Streaming TCP flow analysis: offline over captures, live through Kafka and Flink.",
        subcommands = {AnalyzeCommand.class, DemoCommand.class, AgentCommand.class, ConntrackCommand.class})
public final class FlowtraceCli implements Runnable {

    public static void main(String[] args) {
        System.exit(new CommandLine(new FlowtraceCli()).execute(args));
    }

    @Override
    public void run() {
        new CommandLine(this).usage(System.err);
    }
}
