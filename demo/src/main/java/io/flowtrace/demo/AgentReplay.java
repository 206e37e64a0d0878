package io.flowtrace.demo;

import io.flowtrace.agent.batch.BatchLimits;
import io.flowtrace.agent.batch.BatchOptions;
import io.flowtrace.agent.conntrack.ConntrackPublishingSink;
import io.flowtrace.agent.kafka.ProducerSettings;
import io.flowtrace.agent.kafka.SpoolingPublisher;
import io.flowtrace.agent.metrics.AgentMetrics;
import io.flowtrace.agent.packets.CapturePublisher;
import io.flowtrace.agent.packets.ReplayPacer;
import io.flowtrace.agent.spool.DiskSpool;
import io.flowtrace.avro.ConntrackSource;
import io.flowtrace.avro.Vantage;
import io.flowtrace.cli.capture.CaptureBytes;
import io.flowtrace.core.conntrack.CtnetlinkParseException;
import io.flowtrace.core.conntrack.CtnetlinkParser;
import io.flowtrace.core.openvpn.OpenVpnWire;
import io.flowtrace.core.pcap.CaptureFormatException;
import io.flowtrace.core.pcap.CaptureReader;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * The agents' own code replaying files into Kafka: {@link CapturePublisher} (what
 * {@code flowtrace agent packets FILE} runs) for captures, and {@link ConntrackPublishingSink} (what
 * {@code flowtrace agent conntrack --source netlink} publishes through) for raw ctnetlink recordings,
 * each message parsed by core's {@link CtnetlinkParser} as the live socket reader does. Both publish
 * through the agent's {@link SpoolingPublisher} with the agent's producer settings.
 */
final class AgentReplay {
    /** The requested SO_RCVBUF of the recorded listener (conntrackd's 2 MiB, burst.facts); the kernel doubles it. */
    static final int RECORDED_RCVBUF = 2 * 2_097_152;

    private final String bootstrapServers;
    private final Path spoolRoot;
    private final StatusLine status;
    private final BooleanSupplier stop;

    AgentReplay(String bootstrapServers, Path spoolRoot, StatusLine status, BooleanSupplier stop) {
        this.bootstrapServers = bootstrapServers;
        this.spoolRoot = spoolRoot;
        this.status = status;
        this.stop = stop;
    }

    record Published(long read, long published, long malformed, long skipped) {}

    Published packets(Capture capture, String topic) throws Exception {
        AgentMetrics metrics = new AgentMetrics();
        long size = CaptureBytes.size(capture.file());
        String label = "agent packets  " + capture.file().getFileName();
        StatusLine.Step step = status.step(label, size);
        long started = System.nanoTime();
        try (SpoolingPublisher publisher = open(topic, capture.agentId(), metrics)) {
            // as `flowtrace agent packets FILE` runs by default: per-flow batches, linger in capture time,
            // OpenVPN on UDP 1194 as OpenVpnBatches
            CapturePublisher agent = new CapturePublisher(
                    capture.agentId(),
                    null,
                    publisher,
                    metrics,
                    new BatchOptions(BatchLimits.DEFAULTS, BatchOptions.LingerClock.CAPTURE_TIME),
                    OpenVpnWire.defaults());
            // the bar and "frames read" from the same bytes
            // (cli/src/main/java/io/flowtrace/cli/capture/CaptureBytes.java)
            try (InputStream in = CaptureBytes.open(
                    capture.file(),
                    consumed -> step.update(
                            consumed,
                            String.format(
                                    Locale.ROOT,
                                    "  %,d frames read, %,d published",
                                    metrics.read.sum(),
                                    metrics.published.sum())))) {
                CaptureReader reader = CaptureReader.open(in, agent);
                agent.publishAll(reader, ReplayPacer.UNPACED, stop);
            } catch (CaptureFormatException e) {
                throw new IllegalArgumentException(capture.file() + ": " + e.getMessage(), e);
            }
        }
        Published p = new Published(
                metrics.read.sum(), metrics.published.sum(), metrics.malformedTotal(), metrics.skippedTotal());
        step.done(String.format(
                Locale.ROOT,
                "%s  %,d frames read, %,d TCP packets published%s (%.1f s)",
                label,
                p.read(),
                p.published(),
                p.malformed() + p.skipped() > 0
                        ? String.format(Locale.ROOT, ", %,d not TCP, %,d malformed", p.skipped(), p.malformed())
                        : "",
                (System.nanoTime() - started) / 1e9));
        return p;
    }

    Published conntrack(Capture recording, String topic) throws Exception {
        AgentMetrics metrics = new AgentMetrics();
        byte[] bin = Files.readAllBytes(recording.file());
        ByteBuffer bb = ByteBuffer.wrap(bin).order(ByteOrder.LITTLE_ENDIAN);
        Vantage vantage = Vantage.newBuilder()
                .setAgentId(recording.agentId())
                .setInterfaceName("conntrack")
                .build();
        String label = "agent conntrack " + recording.file().getFileName();
        StatusLine.Step step = status.step(label, bin.length);
        CtnetlinkParser parser = new CtnetlinkParser();
        try (SpoolingPublisher publisher = open(topic, recording.agentId(), metrics)) {
            ConntrackPublishingSink sink =
                    new ConntrackPublishingSink(vantage, ConntrackSource.NETLINK, RECORDED_RCVBUF, publisher, metrics);
            while (bb.remaining() >= 4 && !stop.getAsBoolean()) {
                int length = bb.getInt();
                if (length < 0 || length > bb.remaining()) {
                    throw new IllegalArgumentException(recording.file() + ": length prefix " + length + " at byte "
                            + (bb.position() - 4) + " runs past the end of the file");
                }
                byte[] message = new byte[length];
                bb.get(message);
                try {
                    sink.event(parser.parse(message, 0, length, -1));
                } catch (CtnetlinkParseException e) {
                    sink.malformed(e);
                }
                step.update(bb.position(), String.format(Locale.ROOT, "  %,d events", metrics.read.sum()));
            }
        }
        Published p = new Published(metrics.read.sum(), metrics.published.sum(), metrics.malformedTotal(), 0);
        step.done(String.format(
                Locale.ROOT,
                "%s  %,d ctnetlink messages, %,d events published%s",
                label,
                p.read(),
                p.published(),
                p.malformed() > 0 ? String.format(Locale.ROOT, ", %,d malformed", p.malformed()) : ""));
        return p;
    }

    private SpoolingPublisher open(String topic, String agentId, AgentMetrics metrics) throws Exception {
        var props = ProducerSettings.build(bootstrapServers, null, null, "flowtrace-demo-" + agentId + "-" + topic);
        var spool = DiskSpool.open(spoolRoot.resolve(agentId + "-" + topic), 256L << 20);
        return new SpoolingPublisher(
                new KafkaProducer<>(props), topic, spool, metrics, TimeUnit.SECONDS.toNanos(5), Duration.ofSeconds(60));
    }
}
