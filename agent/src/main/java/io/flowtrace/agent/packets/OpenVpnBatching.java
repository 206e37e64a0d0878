package io.flowtrace.agent.packets;

import io.flowtrace.agent.batch.BatchContents;
import io.flowtrace.agent.batch.BatchKey;
import io.flowtrace.agent.batch.BatchLimits;
import io.flowtrace.agent.batch.FlowBatcher;
import io.flowtrace.agent.batch.FlushReason;
import io.flowtrace.agent.metrics.AgentMetrics;
import io.flowtrace.agent.metrics.RateLimitedLog;
import io.flowtrace.avro.Vantage;
import io.flowtrace.avro.mapping.OpenVpnBatches;
import io.flowtrace.core.openvpn.OpenVpnCaptureAnalysis;
import io.flowtrace.core.openvpn.OpenVpnFlowLayouts;
import io.flowtrace.core.openvpn.OpenVpnHeader;
import io.flowtrace.core.openvpn.OpenVpnHeaderDecoder;
import io.flowtrace.core.openvpn.OpenVpnWire;
import io.flowtrace.core.pcap.CaptureRecord;
import io.flowtrace.core.pcap.DecodedPacket;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The OpenVPN part of {@link CapturePublisher}: UDP datagrams to or from the configured OpenVPN
 * ports become per-flow {@code OpenVpnBatch}es (docs/schemas.md, "OpenVpnBatch") of their header
 * bytes, batched like TCP segments ({@link FlowBatcher}) on the same topic. A header that does not
 * decode (cut by the snap length, impossible contents) is counted as malformed with its reason
 * and still published, so the job dead-letters it with the same reason instead of it vanishing
 * here; it is never fatal. Called under the publisher's lock, like its TCP batcher.
 */
final class OpenVpnBatching {
    private static final Logger LOG = LoggerFactory.getLogger(OpenVpnBatching.class);

    private final OpenVpnWire wire;
    private final OpenVpnHeaderDecoder decoder;
    /** Each flow's wrapping: configured, or found from its packets; a batch holds one layout. */
    private final OpenVpnFlowLayouts layouts;
    /** The layout of the packet being added. */
    private OpenVpnWire packetLayout;

    private final OpenVpnHeader header = new OpenVpnHeader();
    private final FlowBatcher<Writer> batcher;
    private final AgentMetrics metrics;
    private final RateLimitedLog badHeaderLog = new RateLimitedLog(LOG, 5_000);
    /** The frame of the packet being added: what the writers copy its header from. */
    private byte[] frame;

    OpenVpnBatching(
            OpenVpnWire wire,
            BatchLimits limits,
            IntFunction<Vantage> vantages,
            FlowBatcher.Sink<Writer> sink,
            AgentMetrics metrics) {
        this.wire = wire;
        this.decoder = new OpenVpnHeaderDecoder(wire);
        this.layouts = new OpenVpnFlowLayouts(wire);
        this.metrics = metrics;
        this.batcher = new FlowBatcher<>(limits, () -> new Writer(vantages), sink);
    }

    /** Whether a UDP packet is on one of the OpenVPN ports. */
    boolean accepts(DecodedPacket p) {
        return wire.isOpenVpnPort(p.srcPort) || wire.isOpenVpnPort(p.dstPort);
    }

    /** Decodes the OpenVPN header of a UDP packet of {@code rec} and adds the packet to its flow's batch. */
    void add(BatchKey key, CaptureRecord rec, DecodedPacket p, long now) throws IOException {
        packetLayout = layouts.layout(
                OpenVpnCaptureAnalysis.flowKey(p),
                rec.data,
                p.payloadOffset,
                p.payloadCaptured,
                p.payloadLength,
                p.timestampNanos);
        OpenVpnHeader.Kind kind =
                decoder.decode(packetLayout, rec.data, p.payloadOffset, p.payloadCaptured, p.payloadLength, header);
        if (kind == OpenVpnHeader.Kind.TRUNCATED || kind == OpenVpnHeader.Kind.MALFORMED) {
            String reason = kind == OpenVpnHeader.Kind.TRUNCATED ? "openvpn-truncated" : "openvpn-malformed";
            metrics.malformed(reason);
            badHeaderLog.warn(
                    "record {} (byte offset {}): {}: {} (published; the job dead-letters it)",
                    rec.recordNumber,
                    rec.byteOffset,
                    reason,
                    header.reason);
        }
        frame = rec.data;
        batcher.add(key, p, now);
    }

    void expire(long now) throws IOException {
        batcher.expire(now);
    }

    void flushAll(FlushReason reason) throws IOException {
        batcher.flushAll(reason);
    }

    /** One open OpenVpnBatch. */
    final class Writer implements BatchContents {
        private final IntFunction<Vantage> vantages;
        private OpenVpnBatches.Builder builder;
        private Vantage vantage;

        Writer(IntFunction<Vantage> vantages) {
            this.vantages = vantages;
        }

        @Override
        public void open(BatchKey key, DecodedPacket first) {
            Vantage v = vantages.apply(key.interfaceId());
            if (builder == null || !v.equals(vantage)) {
                vantage = v;
                builder = new OpenVpnBatches.Builder(v, wire);
            }
            builder.layout(packetLayout);
        }

        /** A flow whose wrapping was just found starts a new batch: a batch is read with one layout. */
        @Override
        public boolean fits(DecodedPacket packet) {
            return builder.size() == 0 || builder.layout().equals(packetLayout);
        }

        @Override
        public int add(DecodedPacket packet) {
            return builder.add(packet, header, frame);
        }

        @Override
        public int maxPacketBytes() {
            return OpenVpnBatches.Builder.maxPacketBytes(OpenVpnBatches.MAX_HEADER_BYTES);
        }

        /** The batch as a single-object encoded value; starts the next one. */
        byte[] finish() throws IOException {
            ByteBuffer b = builder.build().toByteBuffer();
            return Arrays.copyOfRange(b.array(), b.arrayOffset() + b.position(), b.arrayOffset() + b.limit());
        }
    }
}
