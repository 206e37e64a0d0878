package io.flowtrace.agent.packets;

import io.flowtrace.agent.batch.BatchKey;
import io.flowtrace.agent.batch.BatchLimits;
import io.flowtrace.agent.batch.BatchOptions;
import io.flowtrace.agent.batch.FlowBatcher;
import io.flowtrace.agent.batch.FlushReason;
import io.flowtrace.agent.kafka.SpoolingPublisher;
import io.flowtrace.agent.metrics.AgentMetrics;
import io.flowtrace.agent.metrics.RateLimitedLog;
import io.flowtrace.avro.PacketEvent;
import io.flowtrace.avro.SingleObjectCodec;
import io.flowtrace.avro.Vantage;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.openvpn.OpenVpnWire;
import io.flowtrace.core.pcap.CaptureErrorListener;
import io.flowtrace.core.pcap.CaptureFormatException;
import io.flowtrace.core.pcap.CaptureReader;
import io.flowtrace.core.pcap.CaptureRecord;
import io.flowtrace.core.pcap.DecodeStatus;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.core.pcap.PacketDecoder;
import java.io.IOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Capture records in, Kafka records out: decodes each frame with core's decoder, publishes TCP
 * segments keyed by their canonical flow key, counts everything else by reason. Malformed frames
 * are never fatal. With {@link BatchOptions} the segments go out as per-flow {@code PacketBatch}es
 * ({@link FlowBatcher}); without, as one {@code PacketEvent} each. With an {@link OpenVpnWire}, UDP
 * datagrams on its ports go out as per-flow {@code OpenVpnBatch}es ({@link OpenVpnBatching}) on the
 * same topic, and TCP segments on its ports both as TCP and, framed, in OpenVpnBatches of transport
 * tcp; other UDP is skipped as before. One instance per capture thread
 * (it reuses its buffers); {@link #close()} (or the end of {@link #publishAll}) flushes what is open.
 */
public final class CapturePublisher implements CaptureErrorListener, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CapturePublisher.class);
    private static final long MIN_TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** OpenVPN batches when TCP batching is off: each packet leaves at once, as a PacketEvent would. */
    private static final BatchLimits SINGLE_PACKET_BATCHES = new BatchLimits(1, BatchLimits.DEFAULT_MAX_BYTES, 0, 1);
    /**
     * Interface ids below this index arrays (grown to the largest id seen): a lookup per packet without
     * boxing. Kernel interface indexes (SLL2, {@code any}) grow with every interface a node ever made
     * (a veth per pod), so the rare ids above go to a map rather than grow the arrays without bound.
     */
    private static final int DIRECT_IDS = 1 << 16;

    private final String agentId;
    private final InterfaceNames interfaceNames;
    private final SpoolingPublisher out;
    private final AgentMetrics metrics;
    private final PacketDecoder decoder;
    private final DecodedPacket packet = new DecodedPacket();
    private final CaptureRecord record = new CaptureRecord();
    private final FlowKeyCache keys = new FlowKeyCache();
    private final SingleObjectCodec<PacketEvent> encoder = SingleObjectCodec.of(PacketEvent.class);
    private final RateLimitedLog malformedLog = new RateLimitedLog(LOG, 5_000);
    private final FlowBatcher<PacketBatchWriter> batcher;
    /** UDP on the OpenVPN ports, or null when OpenVPN is off. */
    private final OpenVpnBatching openvpn;

    private final boolean wallClock;
    private final Thread lingerTimer;
    /** Per interface id below {@link #DIRECT_IDS}; the ids above in the maps. */
    private Vantage[] vantages = new Vantage[1];

    private VantagePoint[] vantagePoints = new VantagePoint[1];
    private final Map<Integer, Vantage> highVantages = new HashMap<>();
    private final Map<Integer, VantagePoint> highVantagePoints = new HashMap<>();
    /** Set when a flushed batch found the publisher newly spooling: the other open batches follow it. */
    private boolean spoolFlushDue;

    private boolean spoolingSeen;
    private volatile boolean closed;
    private volatile IOException timerFailure;

    /** One PacketEvent per TCP segment (batching off). */
    public CapturePublisher(String agentId, String interfaceName, SpoolingPublisher out, AgentMetrics metrics) {
        this(agentId, interfaceName, out, metrics, null);
    }

    /**
     * @param interfaceName the name of a file's or stdin's capture (--interface-name); null: each
     *     interface id becomes "if&lt;id&gt;" as in {@code flowtrace analyze} ({@link InterfaceNames#of})
     * @param batching per-flow batches, or null for one PacketEvent per segment
     */
    public CapturePublisher(
            String agentId, String interfaceName, SpoolingPublisher out, AgentMetrics metrics, BatchOptions batching) {
        this(agentId, InterfaceNames.of(interfaceName), out, metrics, batching, null);
    }

    /**
     * @param interfaceNames the vantage interface name of each capture interface id: {@link
     *     InterfaceNames#live} for --iface, {@link InterfaceNames#of} for a file or stdin (null: "if&lt;id&gt;")
     * @param openVpnWire the OpenVPN ports and control-channel wrapping, or null to skip UDP; its
     *     batches follow {@code batching}'s limits (one packet per batch when batching is off)
     */
    public CapturePublisher(
            String agentId,
            InterfaceNames interfaceNames,
            SpoolingPublisher out,
            AgentMetrics metrics,
            BatchOptions batching,
            OpenVpnWire openVpnWire) {
        this.agentId = agentId;
        this.interfaceNames = interfaceNames != null ? interfaceNames : InterfaceNames.of(null);
        this.out = out;
        this.metrics = metrics;
        // The UDP test of withUdp() sits after the TCP test: TCP frames decode as before (docs/decoding.md).
        this.decoder = openVpnWire != null ? PacketDecoder.withUdp() : new PacketDecoder();
        this.openvpn = openVpnWire == null
                ? null
                : new OpenVpnBatching(
                        openVpnWire,
                        batching != null ? batching.limits() : SINGLE_PACKET_BATCHES,
                        this::vantage,
                        (key, w, packets, reason) -> sent(key, w.finish(), packets, reason),
                        metrics);
        if (batching == null) {
            batcher = null;
            wallClock = false;
            lingerTimer = null;
            return;
        }
        batcher = new FlowBatcher<>(batching.limits(), () -> new PacketBatchWriter(this::vantage), this::publishBatch);
        wallClock = batching.clock() == BatchOptions.LingerClock.WALL_CLOCK;
        if (wallClock) {
            long tick = Math.max(MIN_TICK_NANOS, batching.limits().lingerNanos() / 4);
            lingerTimer = new Thread(() -> lingerLoop(tick), "flowtrace-batch-linger");
            lingerTimer.setDaemon(true);
            lingerTimer.start();
        } else {
            lingerTimer = null;
        }
    }

    /**
     * Reads {@code reader} to its end (or until {@code stop}), pacing with {@code pacer}, then
     * flushes the open batches.
     *
     * @throws CaptureFormatException when the stream cannot be read any further
     */
    public void publishAll(CaptureReader reader, ReplayPacer pacer, BooleanSupplier stop)
            throws IOException, CaptureFormatException {
        try {
            while (!stop.getAsBoolean() && reader.next(record)) {
                if ((batcher != null || openvpn != null) && !wallClock) {
                    // Before a paced wait: what this record's time expires leaves now, not after the wait.
                    expire(record.timestampNanos);
                }
                pacer.await(record.timestampNanos);
                publish(record);
            }
        } finally {
            flush();
        }
    }

    /** Decodes and publishes (or batches) one frame. */
    public void publish(CaptureRecord rec) throws IOException {
        metrics.read.increment();
        DecodeStatus status = decoder.decode(rec, packet);
        switch (status) {
            case TCP -> {
                if (batcher == null) {
                    byte[] key = keys.key(rec.interfaceId, vantagePoint(rec.interfaceId), packet);
                    out.publish(key, encoder.encode(PacketEvents.toAvro(packet, vantage(rec.interfaceId))));
                } else {
                    batch(keys.flow(rec.interfaceId, vantagePoint(rec.interfaceId), packet), rec.timestampNanos);
                }
                if (openvpn != null && openvpn.accepts(packet)) {
                    openVpn(rec, true); // proto tcp: framed for the OpenVPN analysis as well
                }
            }
            case UDP -> {
                if (openvpn != null && openvpn.accepts(packet)) {
                    openVpn(rec, false);
                } else {
                    metrics.skipped(reasonName(DecodeStatus.NOT_TCP));
                }
            }
            case NOT_IP, NOT_TCP, NON_FIRST_FRAGMENT -> metrics.skipped(reasonName(status));
            case TRUNCATED, MALFORMED, UNSUPPORTED_LINK -> {
                metrics.malformed(reasonName(status));
                malformedLog.warn(
                        "record {} (byte offset {}): {}: {}",
                        rec.recordNumber,
                        rec.byteOffset,
                        reasonName(status),
                        packet.reason);
            }
        }
    }

    /** Publishes every open batch (end of input, SIGTERM). */
    public void flush() throws IOException {
        if (batcher == null && openvpn == null) {
            return;
        }
        synchronized (this) {
            if (batcher != null) {
                batcher.flushAll(FlushReason.SHUTDOWN);
            }
            if (openvpn != null) {
                openvpn.flushAll(FlushReason.SHUTDOWN);
            }
            spoolFlushDue = false;
        }
        rethrowTimerFailure();
    }

    /** Stops the linger timer and flushes every open batch; the SpoolingPublisher stays open. */
    @Override
    public void close() throws IOException {
        closed = true;
        if (lingerTimer != null) {
            lingerTimer.interrupt();
            try {
                lingerTimer.join(TimeUnit.SECONDS.toMillis(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        flush();
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

    private void batch(BatchKey key, long captureNanos) throws IOException {
        rethrowTimerFailure();
        synchronized (this) {
            batcher.add(key, packet, wallClock ? System.nanoTime() : captureNanos);
            followSpooling();
        }
    }

    private void openVpn(CaptureRecord rec, boolean tcp) throws IOException {
        rethrowTimerFailure();
        BatchKey key = keys.flow(rec.interfaceId, vantagePoint(rec.interfaceId), packet);
        long now = wallClock ? System.nanoTime() : rec.timestampNanos;
        synchronized (this) {
            if (tcp) {
                openvpn.addTcp(key, rec, packet, now);
            } else {
                openvpn.add(key, rec, packet, now);
            }
            followSpooling();
        }
    }

    private void expire(long now) throws IOException {
        synchronized (this) {
            if (batcher != null) {
                batcher.expire(now);
            }
            if (openvpn != null) {
                openvpn.expire(now);
            }
            followSpooling();
        }
    }

    /** The batcher's sink: one Kafka record per batch, key = the flow key, value = single-object PacketBatch. */
    private void publishBatch(BatchKey key, PacketBatchWriter batch, int packets, FlushReason reason)
            throws IOException {
        sent(key, batch.finish(), packets, reason);
    }

    /** One Kafka record per batch (PacketBatch or OpenVpnBatch), key = the flow key. */
    private void sent(BatchKey key, byte[] value, int packets, FlushReason reason) throws IOException {
        metrics.batchFlushed(reason.label());
        out.publish(key.bytes(), value, packets);
        boolean spooling = out.spooling();
        if (spooling && !spoolingSeen) {
            spoolFlushDue = true;
        }
        spoolingSeen = spooling;
    }

    /**
     * When Kafka stopped taking records, the packets still in open batches go to the spool right
     * behind the batch that found out, rather than wait in memory for their linger.
     */
    private void followSpooling() throws IOException {
        if (spoolFlushDue) {
            spoolFlushDue = false;
            if (batcher != null) {
                batcher.flushAll(FlushReason.SPOOLING);
            }
            if (openvpn != null) {
                openvpn.flushAll(FlushReason.SPOOLING);
            }
        }
    }

    private void lingerLoop(long tickNanos) {
        while (!closed) {
            LockSupport.parkNanos(tickNanos);
            if (closed) {
                return;
            }
            try {
                expire(System.nanoTime());
            } catch (IOException | RuntimeException e) {
                // The spool failed under the timer: the capture thread reports it at its next packet.
                timerFailure = e instanceof IOException io ? io : new IOException(e.toString(), e);
                return;
            }
        }
    }

    private void rethrowTimerFailure() throws IOException {
        IOException e = timerFailure;
        if (e != null) {
            throw new IOException("publishing a batch from the linger timer failed: " + e.getMessage(), e);
        }
    }

    private VantagePoint vantagePoint(int interfaceId) {
        if (interfaceId < DIRECT_IDS) {
            ensure(interfaceId);
            return vantagePoints[interfaceId];
        }
        VantagePoint point = highVantagePoints.get(interfaceId);
        if (point == null) {
            point = PacketEvents.vantagePoint(vantage(interfaceId));
            highVantagePoints.put(interfaceId, point);
        }
        return point;
    }

    private Vantage vantage(int interfaceId) {
        if (interfaceId < DIRECT_IDS) {
            ensure(interfaceId);
            return vantages[interfaceId];
        }
        Vantage v = highVantages.get(interfaceId);
        if (v == null) {
            v = newVantage(interfaceId);
            highVantages.put(interfaceId, v);
        }
        return v;
    }

    private void ensure(int interfaceId) {
        if (interfaceId >= vantages.length) {
            vantages = Arrays.copyOf(vantages, interfaceId + 1);
            vantagePoints = Arrays.copyOf(vantagePoints, interfaceId + 1);
        }
        if (vantages[interfaceId] == null) {
            vantages[interfaceId] = newVantage(interfaceId);
            vantagePoints[interfaceId] = PacketEvents.vantagePoint(vantages[interfaceId]);
        }
    }

    private Vantage newVantage(int interfaceId) {
        return Vantage.newBuilder()
                .setAgentId(agentId)
                .setInterfaceName(interfaceNames.name(interfaceId))
                .build();
    }
}
