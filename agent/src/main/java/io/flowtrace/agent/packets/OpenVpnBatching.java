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
import io.flowtrace.core.openvpn.OpenVpnTcpStreams;
import io.flowtrace.core.openvpn.OpenVpnWire;
import io.flowtrace.core.pcap.CaptureRecord;
import io.flowtrace.core.pcap.DecodedPacket;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The OpenVPN part of {@link CapturePublisher}: UDP datagrams to or from the configured OpenVPN
 * ports become per-flow {@code OpenVpnBatch}es (docs/schemas.md, "OpenVpnBatch") of their header
 * bytes, batched like TCP segments ({@link FlowBatcher}) on the same topic. TCP segments on those
 * ports (proto tcp) are framed here by core's {@link OpenVpnTcpStreams}, as {@code analyze}
 * frames them: each framed packet's header and each TCP retransmission go into a batch of
 * transport tcp (the segments also go on to the TCP analysis as any TCP flow); the framing keeps
 * at most 128 bytes of one packet per direction and 65,536 directions. A header that does not
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
    /** The transport of the packet being added, and whether it is a TCP retransmission entry. */
    private String packetTransport = OpenVpnBatches.UDP;

    private boolean packetRetransmit;
    private final OpenVpnTcpStreams streams = new OpenVpnTcpStreams(this::framed);
    /** The packets the segment being fed completed: bytes kept, then length, of each. */
    private final List<byte[]> framedBytes = new ArrayList<>();

    private final List<Integer> framedLengths = new ArrayList<>();
    private final DecodedPacket framedPacket = new DecodedPacket();

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

    /** Whether a UDP datagram or TCP segment is on one of the OpenVPN ports. */
    boolean accepts(DecodedPacket p) {
        return wire.isOpenVpnPort(p.srcPort) || wire.isOpenVpnPort(p.dstPort);
    }

    /** Decodes the OpenVPN header of a UDP packet of {@code rec} and adds the packet to its flow's batch. */
    void add(BatchKey key, CaptureRecord rec, DecodedPacket p, long now) throws IOException {
        packetTransport = OpenVpnBatches.UDP;
        packetRetransmit = false;
        addDecoded(key, rec, p, rec.data, now);
    }

    /**
     * Feeds a TCP segment of {@code rec} on an OpenVPN port to its direction's framing and adds what
     * it completed to the connection's batch: the framed packets, then, when the segment repeated
     * framed bytes, a TCP retransmission entry (the order in which {@code analyze} counts them).
     */
    void addTcp(BatchKey key, CaptureRecord rec, DecodedPacket p, long now) throws IOException {
        framedBytes.clear();
        framedLengths.clear();
        long gapsBefore = streams.desynchronised();
        boolean retransmit = streams.onSegment(p, rec.data);
        if (streams.desynchronised() > gapsBefore) {
            metrics.malformed("openvpn-tcp-gap");
            badHeaderLog.warn(
                    "record {} (byte offset {}): openvpn-tcp-gap: a missed segment or a snap length shorter than"
                            + " the segment ends the OpenVPN framing of this TCP direction (capture the OpenVPN"
                            + " port whole: --snaplen 0)",
                    rec.recordNumber,
                    rec.byteOffset);
        }
        packetTransport = OpenVpnBatches.TCP;
        packetRetransmit = false;
        for (int i = 0; i < framedBytes.size(); i++) {
            byte[] kept = framedBytes.get(i);
            framedPacket.copyFrom(p);
            framedPacket.flags = 0;
            framedPacket.payloadOffset = 0;
            framedPacket.payloadCaptured = kept.length;
            framedPacket.payloadLength = framedLengths.get(i);
            addDecoded(key, rec, framedPacket, kept, now);
        }
        if (retransmit) {
            packetRetransmit = true;
            packetLayout = wire.withLayout(0, false); // read with no layout: it carries no header
            batcher.add(key, p, now);
        }
    }

    private void framed(DecodedPacket segment, byte[] b, int off, int kept, int length) {
        framedBytes.add(Arrays.copyOfRange(b, off, off + kept));
        framedLengths.add(length);
    }

    /** Decodes the header of {@code p}, whose payload is {@code data[p.payloadOffset...]}, and batches it. */
    private void addDecoded(BatchKey key, CaptureRecord rec, DecodedPacket p, byte[] data, long now)
            throws IOException {
        packetLayout = layouts.layout(
                OpenVpnCaptureAnalysis.flowKey(p),
                data,
                p.payloadOffset,
                p.payloadCaptured,
                p.payloadLength,
                p.timestampNanos);
        OpenVpnHeader.Kind kind =
                decoder.decode(packetLayout, data, p.payloadOffset, p.payloadCaptured, p.payloadLength, header);
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
        frame = data;
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
            builder.transport(packetTransport);
        }

        /**
         * A flow whose wrapping was just found starts a new batch: a batch is read with one layout
         * (a TCP retransmission entry has no header and joins any); and one batch, one transport.
         */
        @Override
        public boolean fits(DecodedPacket packet) {
            return builder.size() == 0
                    || builder.transport().equals(packetTransport)
                            && (packetRetransmit || builder.layout().equals(packetLayout));
        }

        @Override
        public int add(DecodedPacket packet) {
            return packetRetransmit ? builder.addTcpRetransmit(packet) : builder.add(packet, header, frame);
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
