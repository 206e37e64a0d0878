package io.flowtrace.demo;

import io.flowtrace.cli.console.Terminal;
import io.flowtrace.jobs.config.JobConfig;
import io.flowtrace.jobs.config.JobOption;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One demo run, in order: Kafka + PostgreSQL up (topics, sink schema), the agents replay the
 * captures into Kafka, the job runs bounded on a local MiniCluster until it has drained, then the
 * summary, the optional export and report are read back from PostgreSQL. {@link #close} stops
 * everything and removes the temporary directory; it is safe to call twice (normal end and the
 * shutdown hook of Ctrl-C).
 */
final class Demo implements AutoCloseable {
    /** What to run; {@code captures} empty = the bundled ones (and the conntrack recordings). */
    record Settings(
            List<Capture> captures,
            List<Capture> conntrack,
            boolean keep,
            Path reportDir,
            Path exportFile,
            int parallelism,
            boolean quiet,
            boolean terminal) {}

    record Outcome(long packetsPublished, long conntrackPublished, long flows, int exported, double jobSeconds) {}

    private final Settings settings;
    private final PrintStream out;
    private final StatusLine status;
    private final EmbeddedServices services = new EmbeddedServices();
    private Path workDir;
    private volatile boolean stopping;
    private boolean closed;

    Demo(Settings settings, PrintStream out, PrintStream err) {
        this.settings = settings;
        this.out = out;
        this.status = new StatusLine(
                err,
                settings.terminal(),
                settings.quiet(),
                settings.terminal() ? Terminal.columns(Terminal.STDERR) : Terminal.DEFAULT_COLUMNS);
    }

    Outcome run() throws Exception {
        workDir = Files.createTempDirectory("flowtrace-demo-");
        long t0 = System.nanoTime();
        StatusLine.Step starting = status.step("services");
        starting.update("starting Kafka (KRaft) and PostgreSQL ...");
        PrintStream stdout = System.out;
        try {
            // Kafka's storage formatter prints to System.out; the demo's stdout is for results.
            System.setOut(new PrintStream(OutputStream.nullOutputStream()));
            services.start(RuntimeDir.open(RuntimeDir.path()));
        } finally {
            System.setOut(stdout);
        }
        JobConfig config = DemoJob.config(
                services.bootstrapServers(),
                services.jdbcUrl(),
                services.passwordFile(),
                workDir.resolve("checkpoints"),
                settings.parallelism());
        services.kafka().createTopics(DemoJob.PARTITIONS, DemoJob.topics(config).toArray(String[]::new));
        starting.done(String.format(
                Locale.ROOT,
                "services   Kafka (KRaft) at %s, PostgreSQL at %s (%.1f s)",
                services.bootstrapServers(),
                services.psqlUrl(),
                (System.nanoTime() - t0) / 1e9));

        AgentReplay agents =
                new AgentReplay(services.bootstrapServers(), workDir.resolve("spool"), status, () -> stopping);
        long packets = 0;
        for (Capture c : Chronology.byFirstPacket(settings.captures())) {
            packets += agents.packets(c, config.get(JobOption.PACKETS_TOPIC)).published();
        }
        long conntrack = 0;
        for (Capture c : settings.conntrack()) {
            conntrack +=
                    agents.conntrack(c, config.get(JobOption.CONNTRACK_TOPIC)).published();
        }
        if (stopping) {
            throw new InterruptedException("stopped");
        }
        long input = DemoJob.endOffsets(
                services.bootstrapServers(),
                List.of(config.get(JobOption.PACKETS_TOPIC), config.get(JobOption.CONNTRACK_TOPIC)));
        Db db = new Db(services.dataSource());
        // what the agents published, in their units: a Kafka record of packets is a batch of one flow's packets
        String published = String.format(Locale.ROOT, "%,d packets + %,d conntrack events", packets, conntrack);
        double jobSeconds = DemoJob.run(config, services.flinkTls(), services.dataSource(), status, input, published);

        DemoSummary.print(db, out);
        out.flush();
        int exported = exportAndReport(db);
        long flows = db.count("SELECT count(*) FROM flow_summary");
        out.flush();
        return new Outcome(packets, conntrack, flows, exported, jobSeconds);
    }

    /** Writes the --export-flows file and the --report page when asked; returns the flows exported, or -1. */
    private int exportAndReport(Db db) throws Exception {
        int exported = -1;
        if (settings.exportFile() != null) {
            exported = FlowExport.write(services.dataSource(), settings.exportFile());
            out.printf(
                    Locale.ROOT,
                    "%nexported %,d flows (analyze --json format) to %s%n",
                    exported,
                    settings.exportFile());
        }
        if (settings.reportDir() != null) {
            Path page = new HtmlReport(db, settings.captures()).write(settings.reportDir());
            out.printf(
                    Locale.ROOT, "%nHTML report: %s (self-contained; open it in any browser)%n", page.toAbsolutePath());
        }
        return exported;
    }

    /** The data source of the sink tables (tests check the summary against it). */
    Db db() {
        return new Db(services.dataSource());
    }

    String bootstrapServers() {
        return services.bootstrapServers();
    }

    String psqlUrl() {
        return services.psqlUrl();
    }

    /** {@code PGPASSFILE=... psql URL}: the password stays in a 0600 file, out of the terminal and of ps. */
    String psqlCommand() {
        return services.psqlCommand();
    }

    String jdbcUrl() {
        return services.jdbcUrl();
    }

    boolean stopping() {
        return stopping;
    }

    /** Asks a running replay to stop (Ctrl-C); {@link #close} does the rest. */
    void stop() {
        stopping = true;
    }

    @Override
    public synchronized void close() throws Exception {
        if (closed) {
            return;
        }
        closed = true;
        stopping = true;
        try {
            services.close();
        } finally {
            if (workDir != null) {
                deleteTree(workDir);
            }
        }
    }

    static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        List<IOException> errors = new ArrayList<>();
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                try {
                    Files.delete(file);
                } catch (IOException e) {
                    errors.add(e);
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException e) {
                try {
                    Files.delete(dir);
                } catch (IOException x) {
                    errors.add(x);
                }
                return FileVisitResult.CONTINUE;
            }
        });
        if (!errors.isEmpty()) {
            throw errors.get(0);
        }
    }
}
