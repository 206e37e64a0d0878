package io.flowtrace.cli;

import io.flowtrace.cli.agent.AgentCommand;
import io.flowtrace.cli.analyze.AnalyzeCommand;
import io.flowtrace.cli.conntrack.ConntrackCommand;
import io.flowtrace.cli.console.ExitCodes;
import io.flowtrace.cli.console.FlowtraceVersion;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code flowtrace} command: one entry point, one subcommand per task. */
@Command(
        name = "flowtrace",
        mixinStandardHelpOptions = true,
        versionProvider = FlowtraceVersion.class,
        description = "Streaming TCP flow analysis: offline over captures, live through Kafka and Flink.",
        subcommands = {
            AnalyzeCommand.class,
            DemoRedirectCommand.class,
            ClusterRedirectCommand.class,
            AgentCommand.class,
            ConntrackCommand.class,
            // bash/zsh completion from these annotations (picocli's own): source <(./flowtrace generate-completion)
            picocli.AutoComplete.GenerateCompletion.class
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:success",
            "1:an input could not be read, or only in part; or the command failed",
            "2:invalid command line (unknown option, bad option value)"
        })
public final class FlowtraceCli implements Callable<Integer> {
    static final int EXIT_INPUT = ExitCodes.INPUT;
    static final int EXIT_USAGE = ExitCodes.USAGE;

    /** The subcommands of the annotation above by name, for a run that names one. */
    static final Map<String, Class<?>> SUBCOMMANDS = Map.of(
            "analyze", AnalyzeCommand.class,
            "demo", DemoRedirectCommand.class,
            "cluster", ClusterRedirectCommand.class,
            "agent", AgentCommand.class,
            "conntrack", ConntrackCommand.class);

    public static void main(String[] args) {
        // picocli's factory looks for Groovy on the class path once (Class.forName of groovy.lang.Closure):
        // a miss that opens every jar of lib/ in turn, for closures in annotations this CLI has none of
        System.setProperty("picocli.disable.closures", "true");
        System.exit(commandLine(args).execute(args));
    }

    /**
     * The command line with flowtrace's error handling: a bad option or value is one line naming the
     * command and the problem, then where help is (as GNU tools and tcpdump do), exit 2; a failure while
     * running is one line with the exception's message and type, exit 1 (never a stack trace).
     */
    public static CommandLine commandLine() {
        return withErrorHandling(new CommandLine(new FlowtraceCli()));
    }

    /**
     * {@link #commandLine()} for these arguments: when the first one names a subcommand, only that one is
     * built, under a root that has nothing but the name. picocli reads every option annotation of every
     * command it is given, and the agent and conntrack commands (with their own subcommands) were about
     * half of picocli's part in a run of {@code analyze} (docs/BENCHMARKS.md, "Start-up"). What a run
     * parses and prints is the same: a subcommand's usage, errors and run show the root only by its name
     * ("flowtrace analyze"), and the root's own help, version and options can only come before a
     * subcommand. Anything else ({@code --help}, {@code --version}, a misspelt command and its
     * suggestions) gets the whole command line.
     */
    public static CommandLine commandLine(String... args) {
        Class<?> named = args.length > 0 ? SUBCOMMANDS.get(args[0]) : null;
        if (named == null) {
            return commandLine();
        }
        return withErrorHandling(new CommandLine(new Root()).addSubcommand(named));
    }

    /** The root a run of one subcommand is parsed under: only the name the subcommand is shown with. */
    @Command(name = "flowtrace")
    static final class Root implements Callable<Integer> {
        @Override
        public Integer call() {
            return new FlowtraceCli().call(); // never reached: the first argument named a subcommand
        }
    }

    /** Installs flowtrace's handling of bad command lines and failures (also used by the demo's entry point). */
    public static CommandLine withErrorHandling(CommandLine cl) {
        cl.setParameterExceptionHandler(new UsageErrors());
        cl.setExecutionExceptionHandler(new Failures());
        return cl;
    }

    /*
     * Classes rather than lambdas: the class-data-sharing archive of the launcher cannot hold picocli's
     * handler interfaces once a lambda implementing them has been linked at dump time (picocli's classes
     * are of class-file version 49), and each class missing from it is looked for through every jar.
     */
    private static final class UsageErrors implements CommandLine.IParameterExceptionHandler {
        @Override
        public int handleParseException(CommandLine.ParameterException e, String[] args) {
            return usageError(e, args);
        }
    }

    private static final class Failures implements CommandLine.IExecutionExceptionHandler {
        @Override
        public int handleExecutionException(Exception e, CommandLine cmd, CommandLine.ParseResult parsed) {
            return failure(e, cmd);
        }
    }

    private static int usageError(CommandLine.ParameterException e, String[] args) {
        CommandLine cmd = e.getCommandLine();
        PrintWriter err = cmd.getErr();
        String name = cmd.getCommandSpec().qualifiedName();
        err.println(name + ": " + e.getMessage());
        CommandLine.UnmatchedArgumentException.printSuggestions(e, err);
        err.println("Try '" + name + " --help' for more information.");
        err.flush();
        return EXIT_USAGE;
    }

    private static int failure(Exception e, CommandLine cmd) {
        PrintWriter err = cmd.getErr();
        String message = e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
        if (e instanceof UncheckedIOException && e.getCause() != null) {
            message = e.getCause().getMessage();
        }
        err.println(cmd.getCommandSpec().qualifiedName() + ": " + message + " ("
                + e.getClass().getSimpleName() + ")");
        err.flush();
        return EXIT_INPUT;
    }

    /** {@code flowtrace} alone: the usage on stderr and exit 2 (a command line that names no command). */
    @Override
    public Integer call() {
        new CommandLine(this).usage(System.err);
        return EXIT_USAGE;
    }
}
