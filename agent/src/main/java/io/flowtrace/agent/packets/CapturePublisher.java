package io.flowtrace.agent.packets;

import io.flowtrace.agent.kafka.SpoolingPublisher;
import io.flowtrace.agent.metrics.AgentMetrics;
import io.flowtrace.agent.metrics.RateLimitedLog;
import io.flowtrace.avro.Vantage;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.core.pcap.CaptureErrorListener;
import io.flowtrace.core.pcap.CaptureFormatException;
import io.flowtrace.core.pcap.CaptureReader;
import io.flowtrace.core.pcap.CaptureRecord;
import io.flowtrace.core.pcap.DecodeStatus;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.core.pcap.PacketDecoder;
import java.io.IOException;
import java.util.Arrays;
import java.util.Locale;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Capture records in, {@code PacketEvent}s out: decodes each frame with core's decoder, publishes
 * TCP segments keyed by their canonical flow key, counts everything else by reason. Malformed
 * frames are never fatal. One instance per capture thread (it reuses its buffers).
 */
public final class CapturePublisher implements CaptureErrorListener {
    private static final Logger LOG = LoggerFactory.getLogger(CapturePublisher.class);

    private final String agentId;
    private final String interfaceName;
    private final SpoolingPublisher out;
    private final AgentMetrics metrics;
    private final PacketDecoder decoder = new PacketDecoder();
    private final DecodedPacket packet = new DecodedPacket();
    private final CaptureRecord record = new CaptureRecord();
    private final FlowKeyCache keys = new FlowKeyCache();
    private final PacketEventEncoder encoder = new PacketEventEncoder();
    private final RateLimitedLog malformedLog = new RateLimitedLog(LOG, 5_000);
    private Vantage[] vantages = new Vantage[1];
    private String[] vantageNames = new String[1];

    /**
     * @param interfaceName the capture interface (--iface); null for files and stdin, where each
     *     pcapng interface id becomes "if&lt;id&gt;" as in {@code flowtrace analyze}
     */
    public CapturePublisher(String agentId, String interfaceName, SpoolingPublisher out, AgentMetrics metrics) {
        this.agentId = agentId;
        this.interfaceName = interfaceName;
        this.out = out;
        this.metrics = metrics;
    }

    /**
     * Reads {@code reader} to its end (or until {@code stop}), pacing with {@code pacer}.
     *
     * @throws CaptureFormatException when the stream cannot be read any further
     */
    public void publishAll(CaptureReader reader, ReplayPacer pacer, BooleanSupplier stop)
            throws IOException, CaptureFormatException {
        while (!stop.getAsBoolean() && reader.next(record)) {
            pacer.await(record.timestampNanos);
            publish(record);
        }
    }

    /** Decodes and publishes one frame. */
    public void publish(CaptureRecord rec) throws IOException {
        metrics.read.increment();
        DecodeStatus status = decoder.decode(rec, packet);
        switch (status) {
            case TCP -> {
                byte[] key = keys.key(rec.interfaceId, vantageName(rec.interfaceId), packet);
                out.publish(key, encoder.encode(PacketEvents.toAvro(packet, vantage(rec.interfaceId))));
            }
            case NOT_IP, NOT_TCP, NON_FIRST_FRAGMENT -> metrics.skipped(reasonName(status));
            case TRUNCATED, MALFORMED, UNSUPPORTED_LINK -> {
                metrics.malformed(reasonName(status));
                malformedLog.warn("record {} (byte offset {}): {}: {}", rec.recordNumber, rec.byteOffset,
                        reasonName(status), packet.reason);
            }
        }
    }

    /** A format error the reader recovered from (or a truncated tail): counted, logged, reading goes on. */
    @Override
    public void onError(CaptureFormatException error) {
        metrics.malformed("capture-format");
        malformedLog.warn("capture format: {}", error.getMessage());
    }

    static String reasonName(DecodeStatus status) {
        return status.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    private String vantageName(int interfaceId) {
        ensure(interfaceId);
        return vantageNames[interfaceId];
    }

    private Vantage vantage(int interfaceId) {
        ensure(interfaceId);
        return vantages[interfaceId];
    }

    private void ensure(int interfaceId) {
        if (interfaceId >= vantages.length) {
            vantages = Arrays.copyOf(vantages, interfaceId + 1);
            vantageNames = Arrays.copyOf(vantageNames, interfaceId + 1);
        }
        if (vantages[interfaceId] == null) {
            String name = interfaceName != null ? interfaceName : "if" + interfaceId;
            vantages[interfaceId] = Vantage.newBuilder().setAgentId(agentId).setInterfaceName(name).build();
            vantageNames[interfaceId] = PacketEvents.vantage(vantages[interfaceId]);
        }
    }
}
