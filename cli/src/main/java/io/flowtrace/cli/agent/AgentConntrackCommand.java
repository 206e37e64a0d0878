package io.flowtrace.cli.agent;

import io.flowtrace.agent.conntrack.ConntrackEventsProcess;
import io.flowtrace.agent.conntrack.ConntrackPublishingSink;
import io.flowtrace.agent.conntrack.CtnetlinkSource;
import io.flowtrace.agent.kafka.SpoolingPublisher;
import io.flowtrace.agent.metrics.AgentMetrics;
import io.flowtrace.agent.metrics.MetricsEndpoint;
import io.flowtrace.agent.spool.SpoolCorruptedException;
import io.flowtrace.avro.ConntrackSource;
import io.flowtrace.avro.Vantage;
import io.flowtrace.cli.console.FlowtraceVersion;
import io.flowtrace.core.conntrack.KernelFeatures;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code flowtrace agent conntrack}: conntrack events (ctnetlink or conntrack -E) to Kafka. */
@Command(
        name = "conntrack",
        mixinStandardHelpOptions = true,
        versionProvider = FlowtraceVersion.class,
        sortOptions = false,
        description = {
            "Publish conntrack events (Avro ConntrackEvent) and ENOBUFS losses (ConntrackLoss) to Kafka.",
            "  flowtrace agent conntrack --bootstrap-servers k:9092   (ctnetlink, CAP_NET_ADMIN)",
            "  flowtrace agent conntrack --bootstrap-servers k:9092 --source conntrack-tool"
        })
public final class AgentConntrackCommand implements Callable<Integer> {

    enum SourceKind {
        netlink,
        conntrack_tool
    }

    @Option(
            names = "--source",
            paramLabel = "KIND",
            defaultValue = "netlink",
            converter = SourceConverter.class,
            description = "netlink (raw ctnetlink socket: wire sizes, ENOBUFS) or conntrack-tool (conntrack -E text; "
                    + "default: ${DEFAULT-VALUE})")
    SourceKind source;

    @Option(
            names = "--rcvbuf",
            paramLabel = "BYTES",
            defaultValue = "2097152",
            description =
                    "SO_RCVBUF(FORCE) request for the netlink socket; the kernel doubles it (default: ${DEFAULT-VALUE})")
    int rcvbuf;

    @Option(
            names = "--input",
            paramLabel = "FILE",
            description = "with conntrack-tool: read this file (or - for stdin) instead of running conntrack -E")
    String input;

    @Option(
            names = "--interface-name",
            paramLabel = "NAME",
            defaultValue = "conntrack",
            description = "vantage interface name, e.g. the network namespace (default: ${DEFAULT-VALUE})")
    String interfaceName;

    @Option(
            names = "--topic",
            paramLabel = "TOPIC",
            defaultValue = "flowtrace.conntrack",
            description = "Kafka topic (default: ${DEFAULT-VALUE})")
    String topic;

    @Mixin
    PublishOptions publish;

    private volatile boolean stop;
    private volatile Process conntrackTool;

    @Override
    public Integer call() throws Exception {
        try {
            return run();
        } catch (IOException | UncheckedIOException e) {
            System.err.println("flowtrace agent conntrack: " + e.getMessage()
                    + (e.getCause() != null ? ": " + e.getCause().getMessage() : ""));
            return 1;
        }
    }

    private int run() throws Exception {
        AgentMetrics metrics = new AgentMetrics();
        SpoolingPublisher publisher;
        try {
            publisher = publish.openPublisher(topic, metrics, input == null);
        } catch (SpoolCorruptedException | IllegalArgumentException e) {
            System.err.println("flowtrace agent conntrack: " + e.getMessage());
            return 2;
        }
        MetricsEndpoint endpoint = publish.startMetrics(topic, metrics, publisher);
        AgentProgress progress = new AgentProgress(
                "conntrack " + source.name().replace('_', '-'), metrics, publisher, publish.quiet, -1);
        try (AgentShutdown shutdown = AgentShutdown.install(this::stopReading, publish.shutdownTimeoutSeconds)) {
            int delivery;
            try {
                progress.start();
                publishEvents(publisher, metrics);
            } finally {
                progress.stopDisplay();
                delivery = publish.closeAndReport(publisher, progress, endpoint, "events");
            }
            return shutdown.exitStatus(delivery);
        }
    }

    private void stopReading() {
        stop = true;
        Process p = conntrackTool;
        if (p != null) {
            p.toHandle().destroy(); // SIGTERM only: Process.destroy() would also close the pipe we read
        }
    }

    /** Reads the chosen source until it ends or the agent is stopped, publishing every event. */
    private void publishEvents(SpoolingPublisher publisher, AgentMetrics metrics)
            throws IOException, InterruptedException {
        Vantage vantage = Vantage.newBuilder()
                .setAgentId(publish.agentId())
                .setInterfaceName(interfaceName)
                .build();
        if (source == SourceKind.netlink) {
            try (CtnetlinkSource src = CtnetlinkSource.open(rcvbuf, CtnetlinkSource.GROUPS_NEW_UPDATE_DESTROY)) {
                ConntrackPublishingSink sink = new ConntrackPublishingSink(
                        vantage, ConntrackSource.NETLINK, src.effectiveRcvbuf(), publisher, metrics);
                src.run(sink, () -> !stop);
            }
        } else {
            ConntrackPublishingSink sink =
                    new ConntrackPublishingSink(vantage, ConntrackSource.CONNTRACK_TOOL, null, publisher, metrics);
            readText(sink);
        }
    }

    private void readText(ConntrackPublishingSink sink) throws IOException, InterruptedException {
        ConntrackEventsProcess text = new ConntrackEventsProcess(KernelFeatures.stock());
        if (input != null) {
            try (Reader r = input.equals("-")
                    ? new InputStreamReader(System.in, StandardCharsets.UTF_8)
                    : Files.newBufferedReader(Path.of(input), StandardCharsets.UTF_8)) {
                text.read(r, sink);
            }
            return;
        }
        Process p = new ProcessBuilder(ConntrackEventsProcess.COMMAND)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        conntrackTool = p;
        try (Reader out = new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)) {
            text.read(out, sink);
        } finally {
            p.destroy();
        }
        int exit = p.waitFor();
        if (exit != 0 && !stop) {
            throw new IOException(String.join(" ", ConntrackEventsProcess.COMMAND) + " exited with status " + exit);
        }
    }

    static final class SourceConverter implements picocli.CommandLine.ITypeConverter<SourceKind> {
        @Override
        public SourceKind convert(String value) {
            return switch (value) {
                case "netlink" -> SourceKind.netlink;
                case "conntrack-tool" -> SourceKind.conntrack_tool;
                default ->
                    throw new picocli.CommandLine.TypeConversionException(
                            "--source must be netlink or conntrack-tool, not " + value);
            };
        }
    }
}
