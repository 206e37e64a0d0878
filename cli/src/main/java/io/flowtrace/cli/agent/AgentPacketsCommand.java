package io.flowtrace.cli.agent;

import io.flowtrace.agent.batch.BatchOptions;
import io.flowtrace.agent.kafka.SpoolingPublisher;
import io.flowtrace.agent.metrics.AgentMetrics;
import io.flowtrace.agent.metrics.MetricsEndpoint;
import io.flowtrace.agent.packets.CapturePublisher;
import io.flowtrace.agent.packets.InterfaceNames;
import io.flowtrace.agent.packets.PacketRecordWeight;
import io.flowtrace.agent.packets.ReplayPacer;
import io.flowtrace.agent.packets.TcpdumpSupervisor;
import io.flowtrace.agent.spool.SpoolCorruptedException;
import io.flowtrace.cli.capture.CaptureBytes;
import io.flowtrace.cli.capture.OpenVpnWireOptions;
import io.flowtrace.cli.console.FlowtraceVersion;
import io.flowtrace.core.openvpn.OpenVpnWire;
import io.flowtrace.core.pcap.CaptureFormatException;
import io.flowtrace.core.pcap.CaptureReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code flowtrace agent packets}: a capture (file, stdin or live tcpdump) to Kafka as per-flow PacketBatches (or PacketEvents). */
@Command(
        name = "packets",
        mixinStandardHelpOptions = true,
        versionProvider = FlowtraceVersion.class,
        sortOptions = false,
        description = {
            "Publish the TCP segments of a capture to Kafka (Avro PacketBatch per flow, or PacketEvent; key = flow),",
            "and the OpenVPN headers of UDP on --openvpn-port (OpenVpnBatch per flow, same topic).",
            "  flowtrace agent packets --bootstrap-servers k:9092 capture.pcapng",
            "  tcpdump -i eth0 -s 128 -w - |",
            "      flowtrace agent packets --bootstrap-servers k:9092 -",
            "  flowtrace agent packets --bootstrap-servers k:9092 --iface eth0 --filter 'tcp'"
        })
public final class AgentPacketsCommand implements Callable<Integer> {

    @Parameters(
            arity = "0..1",
            paramLabel = "FILE",
            description = "pcap or pcapng file (gzip ok); - reads standard input")
    String file;

    @Option(
            names = "--iface",
            paramLabel = "IF",
            description =
                    "capture live on this interface by running tcpdump; any: every interface, each a vantage of its own")
    String iface;

    @Option(names = "--filter", paramLabel = "BPF", description = "tcpdump filter expression (with --iface)")
    String filter;

    @Option(
            names = "--snaplen",
            paramLabel = "N",
            defaultValue = "128",
            description = "tcpdump snap length (with --iface; default: ${DEFAULT-VALUE}: headers only)")
    int snaplen;

    @Option(names = "--tcpdump", paramLabel = "PATH", defaultValue = "tcpdump", description = "tcpdump executable")
    String tcpdump;

    @Option(
            names = "--tcpdump-stats-interval",
            paramLabel = "SECONDS",
            defaultValue = "10",
            description =
                    "ask tcpdump for its captured / dropped-by-kernel counts (SIGUSR1) this often; 0: only at exit (default: ${DEFAULT-VALUE})")
    int tcpdumpStatsInterval;

    @Option(
            names = "--interface-name",
            paramLabel = "NAME",
            description =
                    "vantage interface name for a file or stdin (default: if<pcapng interface id>, as analyze; a further interface id N: NAME:ifN)")
    String interfaceName;

    @Option(
            names = "--pace",
            paramLabel = "FACTOR",
            description = "replay a file at capture speed × FACTOR (default: as fast as possible)")
    double pace;

    @Option(
            names = "--topic",
            paramLabel = "TOPIC",
            defaultValue = "flowtrace.packets",
            description = "Kafka topic (default: ${DEFAULT-VALUE})")
    String topic;

    @Mixin
    PublishOptions publish;

    @Mixin
    BatchingOptions batching;

    @Mixin
    OpenVpnWireOptions openvpn;

    private volatile boolean stop;
    private volatile TcpdumpSupervisor supervisor;

    @Override
    public Integer call() throws Exception {
        if ((file == null) == (iface == null)) {
            System.err.println("flowtrace agent packets: give either FILE (or -) or --iface IF");
            return 2;
        }
        // SIGTERM/SIGINT: stop reading, then let run() flush the producer and the spool.
        try (AgentShutdown shutdown = AgentShutdown.install(this::stopReading, publish.shutdownTimeoutSeconds)) {
            try {
                return shutdown.exitStatus(run());
            } catch (IOException | UncheckedIOException e) {
                // Spool or capture I/O: the agent cannot keep its promise; say why, without a stack trace.
                System.err.println("flowtrace agent packets: " + e.getMessage()
                        + (e.getCause() != null ? ": " + e.getCause().getMessage() : ""));
                return shutdown.exitStatus(AgentExit.INPUT);
            }
        }
    }

    private void stopReading() {
        stop = true;
        TcpdumpSupervisor t = supervisor;
        if (t != null) {
            t.stop();
        }
    }

    private int run() throws Exception {
        boolean live = iface != null || "-".equals(file);
        AgentMetrics metrics = new AgentMetrics();
        SpoolingPublisher publisher;
        BatchOptions batches;
        OpenVpnWire openVpnWire;
        try {
            batches = batching.resolve(live);
            openVpnWire = openvpn.wire();
            publisher = publish.openPublisher(
                    topic,
                    metrics,
                    live,
                    PacketRecordWeight.INSTANCE,
                    batches != null ? batches.limits().maxBytes() : 0);
        } catch (SpoolCorruptedException | IllegalArgumentException e) {
            System.err.println("flowtrace agent packets: " + e.getMessage());
            return 2;
        }
        MetricsEndpoint endpoint = publish.startMetrics(topic, metrics, publisher);
        CapturePublisher capture = new CapturePublisher(
                publish.agentId(),
                iface != null ? InterfaceNames.live(iface) : InterfaceNames.of(interfaceName),
                publisher,
                metrics,
                batches,
                openVpnWire);
        TcpdumpSupervisor tcpdumpRun = iface != null
                ? new TcpdumpSupervisor(tcpdump, iface, snaplen, filter, metrics, tcpdumpStatsInterval * 1000L)
                : null;
        supervisor = tcpdumpRun;
        String label = iface != null ? iface : file;
        AgentProgress progress = new AgentProgress(label, metrics, publisher, publish.quiet, sizeOf(file));
        int status = AgentExit.OK;
        int delivery;
        try {
            progress.start();
            if (tcpdumpRun != null) {
                tcpdumpRun.run(capture, () -> stop);
            } else {
                status = replay(capture, progress);
            }
        } finally {
            progress.stopDisplay();
            try {
                capture.close(); // open batches go out before the producer and the spool close
            } finally {
                delivery = publish.closeAndReport(publisher, progress, endpoint, "packets");
            }
        }
        return AgentExit.combine(status, delivery);
    }

    private int replay(CapturePublisher capture, AgentProgress progress) throws IOException {
        ReplayPacer pacer = pace > 0 ? new ReplayPacer(pace) : ReplayPacer.UNPACED;
        try (InputStream in = "-".equals(file) ? progress.counting(System.in) : progress.open(Path.of(file))) {
            CaptureReader reader = CaptureReader.open(in, capture);
            capture.publishAll(reader, pacer, () -> stop);
            return 0;
        } catch (NoSuchFileException e) {
            System.err.println("flowtrace agent packets: " + file + ": no such file");
            return 1;
        } catch (CaptureFormatException e) {
            System.err.println("flowtrace agent packets: " + file + ": " + e.getMessage());
            return 1;
        }
    }

    /** The capture's own bytes (CaptureBytes.size), -1 for standard input or a file that cannot be read. */
    private static long sizeOf(String file) {
        if (file == null || file.equals("-")) {
            return -1;
        }
        try {
            return CaptureBytes.size(Path.of(file));
        } catch (IOException e) {
            return -1;
        }
    }
}
