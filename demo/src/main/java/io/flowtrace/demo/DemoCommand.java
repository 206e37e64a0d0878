package io.flowtrace.demo;

import io.flowtrace.cli.console.PrivateOutput;
import io.flowtrace.cli.console.Terminal;
import io.flowtrace.core.pcap.CaptureFormatException;
import io.flowtrace.core.pcap.CaptureReader;
import io.flowtrace.testkit.PrivateDirectory;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ./flowtrace demo}: the whole pipeline embedded, on bundled captures or your own (docs/demo.md). */
@Command(
        name = "flowtrace demo",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Runs the whole pipeline in one JVM: Kafka (KRaft) and PostgreSQL, the capture agents replaying",
            "captures into Kafka, the Flink job on a local MiniCluster until it has drained; then prints a summary.",
            "  ./flowtrace demo",
            "  ./flowtrace demo --report ./report",
            "  ./flowtrace demo --pcap capture.pcapng --export-flows flows.jsonl"
        })
public final class DemoCommand implements Callable<Integer> {
    @Option(
            names = "--pcap",
            arity = "1..*",
            paramLabel = "FILE",
            description = "replay these pcap/pcapng files (gzip ok) instead of the bundled captures")
    List<Path> pcaps = new ArrayList<>();

    @Option(
            names = "--agent-id",
            paramLabel = "ID",
            description = "with one --pcap file: the agent id of its vantage (default: local, as analyze; with several"
                    + " files each file's name)")
    String agentId;

    @Option(
            names = "--export-flows",
            paramLabel = "FILE",
            description = "write the flow rows read back from PostgreSQL as JSON Lines in the analyze --json format")
    Path exportFile;

    @Option(
            names = "--report",
            paramLabel = "DIR",
            description = "write a self-contained HTML report (index.html) there")
    Path reportDir;

    @Option(names = "--keep", description = "leave Kafka and PostgreSQL running (print how to connect) until Ctrl-C")
    boolean keep;

    @Option(
            names = "--parallelism",
            paramLabel = "N",
            defaultValue = "2",
            description = "job parallelism (default: ${DEFAULT-VALUE})")
    int parallelism;

    @Option(
            names = "--allow-root",
            description = "run even as root (CI, a container); otherwise root is refused: any user account can run"
                    + " the demo")
    boolean allowRoot;

    @Option(
            names = {"-q", "--quiet"},
            description = "no progress lines on stderr")
    boolean quiet;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private final PrintStream out;
    private final PrintStream err;

    public DemoCommand() {
        this(System.out, System.err);
    }

    DemoCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    /** The run's settings from the options (tests build a demo from the same options as the launcher). */
    Demo.Settings settings() {
        Path home = Bundled.home();
        List<Capture> captures = new ArrayList<>();
        List<Capture> conntrack = new ArrayList<>();
        if (pcaps.isEmpty()) {
            captures.addAll(Bundled.tcpCaptures(home));
            captures.add(Bundled.openVpnCapture(home));
            conntrack.addAll(Bundled.conntrackRecordings(home));
        } else {
            for (Path p : pcaps) {
                if (!Files.isRegularFile(p)) {
                    throw new CommandLine.ParameterException(commandLine(), "--pcap " + p + ": no such file");
                }
                String notCapture = notACapture(p);
                if (notCapture != null) {
                    throw new CommandLine.ParameterException(commandLine(), "--pcap " + p + ": " + notCapture);
                }
                String id = pcaps.size() == 1 ? (agentId != null ? agentId : "local") : agentIdOf(p);
                captures.add(new Capture(p, id, "your capture"));
            }
        }
        if (parallelism < 1) {
            throw new CommandLine.ParameterException(commandLine(), "--parallelism must be at least 1");
        }
        checkOutput("--report", reportDir == null ? null : reportDir.resolve("index.html"));
        checkOutput("--export-flows", exportFile);
        // stderr alone decides: progress is wanted with stdout redirected too (System.console() would say no)
        return new Demo.Settings(
                captures,
                conntrack,
                keep,
                reportDir,
                exportFile,
                parallelism,
                quiet,
                Terminal.isTerminal(Terminal.STDERR));
    }

    /** An output path another local user could redirect or swap is refused before anything runs (PrivateOutput). */
    private void checkOutput(String option, Path file) {
        if (file == null) {
            return;
        }
        try {
            PrivateOutput.check(file);
        } catch (IOException e) {
            throw new CommandLine.ParameterException(commandLine(), option + ": " + e.getMessage());
        }
    }

    /** Why {@code p} cannot be replayed (read before any service starts), or null when it starts like a capture. */
    static String notACapture(Path p) {
        try (InputStream in = Files.newInputStream(p);
                CaptureReader reader = CaptureReader.open(in)) {
            return null;
        } catch (CaptureFormatException e) {
            return e.getMessage();
        } catch (IOException e) {
            return "cannot read it: " + e.getMessage();
        }
    }

    private CommandLine commandLine() {
        return spec != null ? spec.commandLine() : new CommandLine(this);
    }

    /** With several files: the file name without .gz/.pcap/.pcapng, so the same 5-tuple in two files stays two flows. */
    static String agentIdOf(Path p) {
        String name = p.getFileName().toString();
        for (String ext : new String[] {".gz", ".pcapng", ".pcap", ".cap"}) {
            if (name.endsWith(ext)) {
                name = name.substring(0, name.length() - ext.length());
            }
        }
        return name.replace('/', '_');
    }

    @Override
    public Integer call() throws Exception {
        DemoLock lock;
        try {
            lock = DemoLock.acquire(DemoLock.defaultPath());
        } catch (DemoLock.DemoBusyException e) {
            err.println("flowtrace demo: " + e.getMessage());
            return 4;
        } catch (PrivateDirectory.UnsafeDirectoryException e) {
            err.println("flowtrace demo: " + e.getMessage());
            return 1;
        }
        if (RuntimeDir.currentUid() == 0) {
            if (!allowRoot) {
                err.println("flowtrace demo: refusing to run as root: PostgreSQL would run with root's uid in a user"
                        + " namespace (unshare -U) and the job's code as root. Run it as an ordinary user (any"
                        + " account can), or pass --allow-root.");
                lock.close();
                return 1;
            }
            err.println("flowtrace demo: running as root (--allow-root). PostgreSQL then runs with root's uid in a"
                    + " user namespace (unshare -U), so the demo locks it down: no superuser login, a random password"
                    + " for its role, every service on 127.0.0.1 only, Flink's endpoints with mutual TLS.");
        }
        Demo.Settings settings;
        try {
            settings = settings();
        } catch (RuntimeException e) {
            lock.close();
            throw e;
        }
        Demo demo = new Demo(settings, out, err);
        CountDownLatch finished = new CountDownLatch(1);
        Thread hook = shutdownHook(demo, lock, finished);
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            demo.run();
            if (settings.keep()) {
                keepUntilInterrupted(demo);
            }
            return 0;
        } catch (InterruptedException e) {
            return 130;
        } catch (Exception e) {
            if (demo.stopping()) {
                return 130; // Ctrl-C: the services went away under the run, not a failure to report
            }
            err.println("flowtrace demo: failed: " + e.getMessage());
            err.println("flowtrace demo: the log is " + DemoMain.logFile());
            return 1;
        } finally {
            finished.countDown();
            closeQuietly(demo, lock);
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // already shutting down: the hook runs (and finds everything closed)
            }
        }
    }

    /** Ctrl-C while the demo runs: stop it and release everything; a line says so unless it had finished. */
    private Thread shutdownHook(Demo demo, DemoLock lock, CountDownLatch finished) {
        return new Thread(
                () -> {
                    demo.stop();
                    if (finished.getCount() > 0) {
                        err.println();
                        err.println("flowtrace demo: stopping (Kafka, PostgreSQL, the job) ...");
                    }
                    closeQuietly(demo, lock);
                },
                "flowtrace-demo-shutdown");
    }

    /** --keep: says how to reach the services, then waits for Ctrl-C (the shutdown hook closes everything). */
    private void keepUntilInterrupted(Demo demo) throws InterruptedException {
        out.printf(
                Locale.ROOT,
                "%n--keep: the services stay up until Ctrl-C.%n  %s%n  JDBC %s (user flowtrace, password in PGPASSFILE)%n  Kafka bootstrap servers %s%n"
                        + "  tables: flow_summary tcp_events service_windows vantage_windows conntrack_budgets dead_letters%n",
                demo.psqlCommand(),
                demo.jdbcUrl(),
                demo.bootstrapServers());
        out.flush();
        new CountDownLatch(1).await();
    }

    private void closeQuietly(Demo demo, DemoLock lock) {
        try {
            demo.close();
        } catch (Exception e) {
            err.println("flowtrace demo: while shutting down: " + e.getMessage());
        }
        try {
            lock.close();
        } catch (Exception e) {
            err.println("flowtrace demo: releasing the lock: " + e.getMessage());
        }
    }
}
