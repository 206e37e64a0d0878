package io.flowtrace.agent.conntrack;

import io.flowtrace.agent.kafka.SpoolingPublisher;
import io.flowtrace.agent.metrics.AgentMetrics;
import io.flowtrace.agent.metrics.RateLimitedLog;
import io.flowtrace.avro.ConntrackEvent;
import io.flowtrace.avro.ConntrackLoss;
import io.flowtrace.avro.ConntrackSource;
import io.flowtrace.avro.SingleObjectCodec;
import io.flowtrace.avro.Vantage;
import io.flowtrace.avro.mapping.ConntrackAvroMapper;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.core.conntrack.ConntrackMessage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes what a conntrack source reads: each event as an Avro {@code ConntrackMessage} keyed by its
 * original tuple, each ENOBUFS as a {@code ConntrackLoss} keyed by the vantage (same topic, told apart
 * by the schema fingerprint; docs/schemas.md). Malformed messages are counted and logged, not fatal.
 */
public final class ConntrackPublishingSink implements ConntrackEventSink {
    private static final Logger LOG = LoggerFactory.getLogger(ConntrackPublishingSink.class);
    public static final String ENOBUFS = "conntrack_enobufs";

    private final Vantage vantage;
    private final String vantageName;
    private final byte[] vantageKey;
    private final ConntrackSource source;
    private final Integer receiveBuffer;
    private final SpoolingPublisher out;
    private final AgentMetrics metrics;
    private final SingleObjectCodec<ConntrackEvent> events = SingleObjectCodec.of(ConntrackEvent.class);
    private final SingleObjectCodec<ConntrackLoss> losses = SingleObjectCodec.of(ConntrackLoss.class);
    private final RateLimitedLog malformedLog = new RateLimitedLog(LOG, 5_000);
    private final RateLimitedLog lossLog = new RateLimitedLog(LOG, 5_000);

    /** @param receiveBuffer the socket's sk_rcvbuf, or null when unknown (text source) */
    public ConntrackPublishingSink(
            Vantage vantage,
            ConntrackSource source,
            Integer receiveBuffer,
            SpoolingPublisher out,
            AgentMetrics metrics) {
        this.vantage = vantage;
        this.vantageName = PacketEvents.vantage(vantage);
        this.vantageKey = vantageName.getBytes(StandardCharsets.UTF_8);
        this.source = source;
        this.receiveBuffer = receiveBuffer;
        this.out = out;
        this.metrics = metrics;
    }

    @Override
    public void event(ConntrackMessage event) {
        metrics.read.increment();
        try {
            out.publish(
                    ConntrackAvroMapper.key(vantageName, event).getBytes(StandardCharsets.UTF_8),
                    events.encode(ConntrackAvroMapper.toAvro(event, vantage, source)));
        } catch (IOException e) {
            throw new UncheckedIOException("publishing conntrack event id " + event.id(), e);
        }
    }

    @Override
    public void malformed(Exception error) {
        metrics.read.increment();
        metrics.malformed(source == ConntrackSource.NETLINK ? "ctnetlink-message" : "conntrack-line");
        malformedLog.warn("unreadable conntrack input: {}", error.getMessage());
    }

    @Override
    public void enobufs(long totalSoFar) {
        metrics.sourceCounter(ENOBUFS, totalSoFar);
        lossLog.warn(
                "ENOBUFS on the ctnetlink socket (receive buffer {} B): the kernel dropped events; {} so far",
                receiveBuffer,
                totalSoFar);
        try {
            out.publish(
                    vantageKey,
                    losses.encode(ConntrackAvroMapper.loss(
                            System.currentTimeMillis() * 1_000_000L, vantage, 1, receiveBuffer, source)));
        } catch (IOException e) {
            throw new UncheckedIOException("publishing a ConntrackLoss", e);
        }
    }
}
