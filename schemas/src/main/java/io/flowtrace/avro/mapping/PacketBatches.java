package io.flowtrace.avro.mapping;

import io.flowtrace.avro.BatchedPacket;
import io.flowtrace.avro.BatchedSackBlock;
import io.flowtrace.avro.PacketBatch;
import io.flowtrace.avro.PacketEvent;
import io.flowtrace.avro.SingleObjectCodec;
import io.flowtrace.avro.Vantage;
import io.flowtrace.core.pcap.DecodeStatus;
import io.flowtrace.core.pcap.DecodedPacket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.avro.SchemaNormalization;

/**
 * Between core's {@link DecodedPacket}, the {@link PacketEvent} contract and the
 * {@link PacketBatch} contract (docs/schemas.md): the agents build batches with
 * {@link Builder}, the job expands them with {@link #fromAvro(PacketBatch, int, DecodedPacket)},
 * and {@link #toEvents}/{@link #fromEvents} convert between a batch and the PacketEvents it
 * stands for, so both ends and the tests agree on every field.
 */
public final class PacketBatches {
    /**
     * The most packets a reader accepts in one batch; larger batches are dead letters. Bounds the
     * memory one decoded batch takes (about 100 bytes a packet) and stays far above what an agent
     * fills within its linger time.
     */
    public static final int MAX_PACKETS = 16_384;
    /** CRC-64-AVRO fingerprint of the PacketBatch schema: bytes 2..9 of its single-object header. */
    public static final long FINGERPRINT = SchemaNormalization.parsingFingerprint64(PacketBatch.getClassSchema());
    /** CRC-64-AVRO fingerprint of the PacketEvent schema. */
    public static final long EVENT_FINGERPRINT = SchemaNormalization.parsingFingerprint64(PacketEvent.getClassSchema());

    private PacketBatches() {}

    /** The canonical flow key of a batch, exactly {@link PacketEvents#flowKey} of any of its packets. */
    public static String flowKey(PacketBatch b) {
        return BatchFields.flowKey(b.getVantage(), b.getLowAddr(), b.getLowPort(), b.getHighAddr(), b.getHighPort());
    }

    /**
     * The fingerprint in a single-object encoded value's header ({@link SingleObjectCodec#fingerprintOf}), or 0 when the value is too short
     * or has no single-object marker: tells a PacketBatch ({@link #FINGERPRINT}) from a PacketEvent
     * ({@link #EVENT_FINGERPRINT}) on one topic without decoding.
     */
    public static long fingerprintOf(byte[] value) {
        return SingleObjectCodec.fingerprintOf(value);
    }

    /** A batch of the given packets, which must all belong to one flow, in capture order. */
    public static PacketBatch toAvro(Vantage vantage, List<DecodedPacket> packets) {
        Builder builder = new Builder(vantage);
        for (DecodedPacket p : packets) {
            builder.add(p);
        }
        return builder.build();
    }

    /** A batch of the given events, which must all be of one flow at one vantage, in capture order. */
    public static PacketBatch fromEvents(List<PacketEvent> events) {
        if (events.isEmpty()) {
            throw new IllegalArgumentException("a batch holds at least one packet");
        }
        Builder builder = new Builder(events.get(0).getVantage());
        DecodedPacket p = new DecodedPacket();
        for (PacketEvent e : events) {
            if (!e.getVantage().equals(builder.vantage)) {
                throw new IllegalArgumentException("event of vantage " + PacketEvents.vantage(e.getVantage())
                        + " in a batch of " + PacketEvents.vantage(builder.vantage));
            }
            PacketEvents.fromAvro(e, p);
            builder.add(p);
        }
        return builder.build();
    }

    /** The PacketEvents a batch stands for, in its order. */
    public static List<PacketEvent> toEvents(PacketBatch b) {
        List<PacketEvent> events = new ArrayList<>(b.getPackets().size());
        DecodedPacket p = new DecodedPacket();
        for (int i = 0; i < b.getPackets().size(); i++) {
            fromAvro(b, i, p);
            events.add(PacketEvents.toAvro(p, b.getVantage()));
        }
        return events;
    }

    /**
     * Why packet {@code i} of a batch whose header is valid ({@link PacketBatchHeader#invalidReason})
     * cannot be analysed, or null: the rules of {@link PacketEvents#invalidReason(PacketEvent, long)}
     * that a packet's own fields can break (the header carries the rest). The job drops only this
     * packet, counted, and analyses the others.
     */
    public static String invalidPacketReason(PacketBatch b, int i, long nowNanos) {
        BatchedPacket p = b.getPackets().get(i);
        String segment = PacketEvents.segmentProblem(
                p.getWindow(),
                p.getPayloadLength(),
                p.getIpTotalLength(),
                p.getTcpFlags(),
                p.getSackBlocks().size(),
                p.getMss(),
                p.getWindowScale(),
                p.getCapturedLength(),
                p.getWireLength(),
                p.getTtl(),
                p.getIpId(),
                p.getTsVal(),
                p.getTsEcr());
        if (segment != null) {
            return segment;
        }
        return BatchFields.packetTimeProblem(b.getBaseTimeNs(), p.getTimeOffsetNs(), nowNanos);
    }

    /**
     * Fills {@code out} with packet {@code i} of a batch whose header is valid, exactly as
     * {@link PacketEvents#fromAvro} fills it from the equivalent PacketEvent.
     */
    public static void fromAvro(PacketBatch b, int i, DecodedPacket out) {
        BatchedPacket p = b.getPackets().get(i);
        boolean fromHigh = p.getFromHigh();
        long senderBase = fromHigh ? b.getHighSeqBase() : b.getLowSeqBase();
        long receiverBase = fromHigh ? b.getLowSeqBase() : b.getHighSeqBase();
        out.status = DecodeStatus.TCP;
        out.reason = null;
        out.timestampNanos = b.getBaseTimeNs() + p.getTimeOffsetNs();
        out.interfaceId = 0;
        out.linkType = b.getLinkType();
        out.capturedLength = p.getCapturedLength();
        out.wireLength = p.getWireLength();
        out.vlanOuter = -1;
        out.vlanInner = -1;
        out.ipVersion = b.getIpVersion();
        BatchFields.fillEndpoints(out, fromHigh, b.getLowAddr(), b.getLowPort(), b.getHighAddr(), b.getHighPort());
        out.ipId = p.getIpId() == null ? -1 : p.getIpId();
        out.ttl = p.getTtl();
        out.ipTotalLength = p.getIpTotalLength();
        out.fragmented = false;
        out.seq = unsigned32(senderBase + p.getSeqOffset());
        out.ack = unsigned32(receiverBase + p.getAckOffset());
        out.flags = p.getTcpFlags();
        out.window = p.getWindow();
        out.payloadLength = p.getPayloadLength();
        out.tcpHeaderLength = 0;
        out.mss = p.getMss() == null ? -1 : p.getMss();
        out.windowScale = p.getWindowScale() == null ? -1 : p.getWindowScale();
        out.sackPermitted = p.getSackPermitted();
        List<BatchedSackBlock> sacks = p.getSackBlocks();
        out.sackCount = Math.min(sacks.size(), DecodedPacket.MAX_SACK_BLOCKS);
        for (int s = 0; s < out.sackCount; s++) {
            out.sackLeft[s] = unsigned32(receiverBase + sacks.get(s).getLeftOffset());
            out.sackRight[s] = unsigned32(receiverBase + sacks.get(s).getRightOffset());
        }
        out.tsVal = p.getTsVal() == null ? -1 : p.getTsVal();
        out.tsEcr = p.getTsEcr() == null ? -1 : p.getTsEcr();
        out.badOptions = false;
        out.truncation = p.getTruncated() ? DecodedPacket.TRUNCATED_OPTIONS : 0;
    }

    static long unsigned32(long v) {
        return v & 0xffffffffL;
    }

    /**
     * Collects one flow's packets into a batch. Sequence bases are chosen at {@link #build()} so
     * offsets stay small: the first seq each endpoint sent, else the first ACK-flagged ack to it.
     * Reusable: {@code build()} starts the next batch of the same vantage.
     */
    public static final class Builder {
        private final Vantage vantage;
        private final List<BatchedPacket> packets = new ArrayList<>();
        /** Raw seq, ack per packet; raw SACK edges flat, in packet order. */
        private long[] seqs = new long[16];

        private long[] acks = new long[16];
        private long[] sackEdges = new long[16];
        private int sackEdgeCount;
        private int linkType;
        private int ipVersion;
        private int addrLength;
        private final byte[] lowAddr = new byte[16];
        private final byte[] highAddr = new byte[16];
        private int lowPort;
        private int highPort;
        private long baseTimeNs;

        public Builder(Vantage vantage) {
            this.vantage = vantage;
        }

        /** Packets added since the last build. */
        public int size() {
            return packets.size();
        }

        /** Whether a packet belongs to this batch's flow (always true for an empty batch). */
        public boolean accepts(DecodedPacket p) {
            if (packets.isEmpty()) {
                return true;
            }
            if (p.linkType != linkType || p.ipVersion != ipVersion || p.addrLength != addrLength) {
                return false;
            }
            return p.srcPort == lowPort
                            && p.dstPort == highPort
                            && same(p.srcAddr, lowAddr)
                            && same(p.dstAddr, highAddr)
                    || p.srcPort == highPort
                            && p.dstPort == lowPort
                            && same(p.srcAddr, highAddr)
                            && same(p.dstAddr, lowAddr);
        }

        /** Adds a TCP packet of this batch's flow; throws IllegalArgumentException for another flow. */
        public void add(DecodedPacket p) {
            if (packets.isEmpty()) {
                start(p);
            } else if (!accepts(p)) {
                throw new IllegalArgumentException("packet " + p.srcPort + "->" + p.dstPort + " (IPv" + p.ipVersion
                        + ", link type " + p.linkType + ") is not of this batch's flow " + lowPort + "<->" + highPort);
            }
            int i = packets.size();
            boolean fromHigh = !(p.srcPort == lowPort && same(p.srcAddr, lowAddr));
            List<BatchedSackBlock> sacks = new ArrayList<>(p.sackCount);
            for (int s = 0; s < p.sackCount; s++) {
                sacks.add(new BatchedSackBlock(0, 0));
                pushSackEdges(p.sackLeft[s], p.sackRight[s]);
            }
            if (i == seqs.length) {
                seqs = Arrays.copyOf(seqs, i * 2);
                acks = Arrays.copyOf(acks, i * 2);
            }
            seqs[i] = p.seq;
            acks[i] = p.ack;
            packets.add(new BatchedPacket(
                    p.timestampNanos - baseTimeNs,
                    fromHigh,
                    0,
                    0,
                    p.ipVersion == 4 && p.ipId >= 0 ? p.ipId : null,
                    p.ttl,
                    p.ipTotalLength,
                    p.flags,
                    p.window,
                    p.payloadLength,
                    p.capturedLength,
                    p.wireLength,
                    p.mss >= 0 ? p.mss : null,
                    p.windowScale >= 0 ? p.windowScale : null,
                    p.sackPermitted,
                    sacks,
                    p.tsVal >= 0 ? p.tsVal : null,
                    p.tsVal >= 0 ? p.tsEcr : null,
                    p.truncation != 0));
        }

        /** The batch of the packets added so far; the builder is empty afterwards. */
        public PacketBatch build() {
            if (packets.isEmpty()) {
                throw new IllegalStateException("a batch holds at least one packet");
            }
            long lowBase = -1;
            long highBase = -1;
            for (int i = 0; i < packets.size() && (lowBase < 0 || highBase < 0); i++) {
                if (packets.get(i).getFromHigh()) {
                    highBase = highBase < 0 ? seqs[i] : highBase;
                } else {
                    lowBase = lowBase < 0 ? seqs[i] : lowBase;
                }
            }
            for (int i = 0; i < packets.size() && (lowBase < 0 || highBase < 0); i++) {
                if ((packets.get(i).getTcpFlags() & DecodedPacket.ACK) != 0) {
                    if (packets.get(i).getFromHigh()) {
                        lowBase = lowBase < 0 ? acks[i] : lowBase;
                    } else {
                        highBase = highBase < 0 ? acks[i] : highBase;
                    }
                }
            }
            lowBase = Math.max(lowBase, 0);
            highBase = Math.max(highBase, 0);
            int edge = 0;
            for (int i = 0; i < packets.size(); i++) {
                BatchedPacket p = packets.get(i);
                long senderBase = p.getFromHigh() ? highBase : lowBase;
                long receiverBase = p.getFromHigh() ? lowBase : highBase;
                p.setSeqOffset((int) (seqs[i] - senderBase));
                p.setAckOffset((int) (acks[i] - receiverBase));
                for (BatchedSackBlock s : p.getSackBlocks()) {
                    s.setLeftOffset((int) (sackEdges[edge++] - receiverBase));
                    s.setRightOffset((int) (sackEdges[edge++] - receiverBase));
                }
            }
            PacketBatch batch = new PacketBatch(
                    vantage,
                    linkType,
                    ipVersion,
                    ByteBuffer.wrap(Arrays.copyOf(lowAddr, addrLength)),
                    lowPort,
                    ByteBuffer.wrap(Arrays.copyOf(highAddr, addrLength)),
                    highPort,
                    baseTimeNs,
                    lowBase,
                    highBase,
                    new ArrayList<>(packets));
            packets.clear();
            sackEdgeCount = 0;
            return batch;
        }

        private void start(DecodedPacket p) {
            linkType = p.linkType;
            ipVersion = p.ipVersion;
            addrLength = p.addrLength;
            boolean srcLow = p.sourceIsLow();
            System.arraycopy(srcLow ? p.srcAddr : p.dstAddr, 0, lowAddr, 0, addrLength);
            System.arraycopy(srcLow ? p.dstAddr : p.srcAddr, 0, highAddr, 0, addrLength);
            lowPort = srcLow ? p.srcPort : p.dstPort;
            highPort = srcLow ? p.dstPort : p.srcPort;
            baseTimeNs = p.timestampNanos;
        }

        private void pushSackEdges(long left, long right) {
            if (sackEdgeCount + 2 > sackEdges.length) {
                sackEdges = Arrays.copyOf(sackEdges, sackEdges.length * 2);
            }
            sackEdges[sackEdgeCount++] = left;
            sackEdges[sackEdgeCount++] = right;
        }

        private boolean same(byte[] a, byte[] b) {
            return Arrays.equals(a, 0, addrLength, b, 0, addrLength);
        }
    }
}
