package io.flowtrace.agent.packets;

import io.flowtrace.agent.batch.BatchContents;
import io.flowtrace.agent.batch.BatchKey;
import io.flowtrace.avro.PacketBatch;
import io.flowtrace.avro.SingleObjectCodec;
import io.flowtrace.avro.Vantage;
import io.flowtrace.core.pcap.DecodedPacket;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntFunction;
import org.apache.avro.io.BinaryData;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

/**
 * One open {@code PacketBatch} (docs/schemas.md), encoded as its packets arrive: each packet is
 * written at once as a {@code BatchedPacket} into this batch's buffer (see {@link #encode}), so an
 * open batch holds about 25-45 bytes a packet instead of the decoded packet (≈ 330 bytes), and the
 * byte limit is checked on real encoded sizes. {@link #finish} puts the single-object header, the
 * batch header and the array around them.
 *
 * <p>The array is the record's last field and Avro writes an array of n items as {@code n, items,
 * 0}; the header is written by {@code PacketBatch.customEncode} with an empty array (whose encoding
 * is the single terminator byte), so the result is byte for byte what {@code PacketBatch.getEncoder()}
 * writes for the same batch (PacketBatchWriterTest).
 *
 * <p>Sequence bases: an endpoint's base is its first seq in the batch, or the ack of an earlier
 * ACK-flagged packet to it. A packet is encoded once both bases are known; until then (a SYN, a bare
 * RST) it waits in a short queue, and at {@link #finish} a base still unknown is 0: every base decodes
 * exactly, the choice only keeps offsets small.
 */
final class PacketBatchWriter implements BatchContents {
    private static final byte[] HEADER = SingleObjectCodec.header(PacketBatch.getClassSchema());
    /** Packets waiting for a base; a SYN and its retransmissions, normally. */
    private static final int MAX_WAITING = 8;
    /**
     * Upper bound of one encoded BatchedPacket: 12 int fields ≤ 5 bytes each and 3 union indexes,
     * 3 long fields ≤ 10 bytes each and 2 union indexes, 3 booleans, SACK array count, 4 blocks of
     * two ints and the terminator: 140.
     */
    static final int MAX_PACKET_BYTES = 12 * 5 + 3 + 3 * 10 + 2 + 3 + 1 + 4 * 10 + 1;

    private final IntFunction<Vantage> vantages;
    private final Buffer items = new Buffer(1024);
    private final Buffer head = new Buffer(128);
    private BinaryEncoder encoder;
    private final PacketBatch batch = new PacketBatch();
    private final DecodedPacket[] waiting = new DecodedPacket[MAX_WAITING];
    private int waitingCount;

    private Vantage vantage;
    private int headerBytes;
    private int linkType;
    private int ipVersion;
    private int addrLength;
    private final byte[] lowAddr = new byte[16];
    private final byte[] highAddr = new byte[16];
    private int lowPort;
    private int highPort;
    private long baseTime;
    private long lowBase;
    private long highBase;
    private boolean lowKnown;
    private boolean highKnown;
    private int encoded;

    /** @param vantages the vantage of a capture interface id */
    PacketBatchWriter(IntFunction<Vantage> vantages) {
        this.vantages = vantages;
        for (int i = 0; i < waiting.length; i++) {
            waiting[i] = new DecodedPacket();
        }
        batch.setPackets(List.of());
    }

    @Override
    public void open(BatchKey key, DecodedPacket first) {
        vantage = vantages.apply(key.interfaceId());
        linkType = first.linkType;
        ipVersion = first.ipVersion;
        addrLength = first.addrLength;
        boolean srcLow = first.sourceIsLow();
        System.arraycopy(srcLow ? first.srcAddr : first.dstAddr, 0, lowAddr, 0, addrLength);
        System.arraycopy(srcLow ? first.dstAddr : first.srcAddr, 0, highAddr, 0, addrLength);
        lowPort = srcLow ? first.srcPort : first.dstPort;
        highPort = srcLow ? first.dstPort : first.srcPort;
        baseTime = first.timestampNanos;
        lowKnown = false;
        highKnown = false;
        waitingCount = 0;
        encoded = 0;
        items.reset();
        // Header fields at their largest: strings as UTF-8 (≤ 3 bytes a char), ints 5, longs 10.
        headerBytes = HEADER.length
                + 2 * 5
                + 3
                        * (vantage.getAgentId().length()
                                + vantage.getInterfaceName().length())
                + 2 * 5
                + 2 * (5 + addrLength)
                + 2 * 5
                + 3 * 10
                + 10
                + 1;
    }

    /** Same link type: a pcapng's interfaces given one --interface-name can share flow keys. */
    @Override
    public boolean fits(DecodedPacket p) {
        return p.linkType == linkType;
    }

    @Override
    public int add(DecodedPacket p) {
        boolean fromHigh = fromHigh(p);
        learnBases(p, fromHigh);
        if (waitingCount > 0 || !(lowKnown && highKnown)) {
            if (waitingCount == MAX_WAITING) {
                drainWaiting();
            } else {
                waiting[waitingCount++].copyFrom(p);
                if (lowKnown && highKnown) {
                    drainWaiting();
                }
                return bytes();
            }
        }
        encode(p, fromHigh);
        return bytes();
    }

    @Override
    public int maxPacketBytes() {
        return MAX_PACKET_BYTES;
    }

    /** Packets in this batch so far. */
    int packets() {
        return encoded + waitingCount;
    }

    /** The single-object encoded PacketBatch of the packets added since {@link #open}. */
    byte[] finish() {
        drainWaiting();
        batch.setVantage(vantage);
        batch.setLinkType(linkType);
        batch.setIpVersion(ipVersion);
        batch.setLowAddr(ByteBuffer.wrap(lowAddr, 0, addrLength));
        batch.setLowPort(lowPort);
        batch.setHighAddr(ByteBuffer.wrap(highAddr, 0, addrLength));
        batch.setHighPort(highPort);
        batch.setBaseTimeNs(baseTime);
        batch.setLowSeqBase(lowBase);
        batch.setHighSeqBase(highBase);
        head.reset();
        head.write(HEADER, 0, HEADER.length);
        BinaryEncoder e = EncoderFactory.get().directBinaryEncoder(head, encoder);
        try {
            batch.customEncode(e);
            e.flush();
            // An empty array is its terminator alone: drop it, then start the one block of items.
            head.dropLast((byte) 0);
            e.writeLong(encoded);
            e.flush();
        } catch (IOException ex) {
            throw new UncheckedIOException("encoding a PacketBatch header into memory", ex);
        }
        encoder = e;
        byte[] value = new byte[head.size() + items.size() + 1];
        System.arraycopy(head.array(), 0, value, 0, head.size());
        System.arraycopy(items.array(), 0, value, head.size(), items.size());
        value[value.length - 1] = 0; // the array's terminator
        return value;
    }

    private int bytes() {
        return headerBytes + items.size() + waitingCount * MAX_PACKET_BYTES;
    }

    private boolean fromHigh(DecodedPacket p) {
        if (p.srcPort != lowPort) {
            return true;
        }
        for (int i = 0; i < addrLength; i++) {
            if (p.srcAddr[i] != lowAddr[i]) {
                return true;
            }
        }
        return false;
    }

    private void learnBases(DecodedPacket p, boolean fromHigh) {
        boolean ack = (p.flags & DecodedPacket.ACK) != 0;
        if (fromHigh) {
            if (!highKnown) {
                highBase = p.seq;
                highKnown = true;
            }
            if (ack && !lowKnown) {
                lowBase = p.ack;
                lowKnown = true;
            }
        } else {
            if (!lowKnown) {
                lowBase = p.seq;
                lowKnown = true;
            }
            if (ack && !highKnown) {
                highBase = p.ack;
                highKnown = true;
            }
        }
    }

    private void drainWaiting() {
        if (waitingCount == 0) {
            return;
        }
        if (!lowKnown) {
            lowBase = 0;
            lowKnown = true;
        }
        if (!highKnown) {
            highBase = 0;
            highKnown = true;
        }
        for (int i = 0; i < waitingCount; i++) {
            encode(waiting[i], fromHigh(waiting[i]));
        }
        waitingCount = 0;
    }

    /**
     * Writes one {@code BatchedPacket} in its schema's field order (PacketBatch.avsc) with Avro's own
     * varint primitives ({@link BinaryData}) straight into the batch's array. Hand-written because it
     * was measured: the generated {@code customEncode} through a {@code org.apache.avro.io.DirectBinaryEncoder} (a stream
     * write per field, boxed nullable fields) took a third of the batch path in a JFR profile of
     * AgentThroughput, more than decoding the packet. PacketBatchWriterTest holds it to the generated
     * coder byte for byte on every packet of seven captures.
     */
    private void encode(DecodedPacket p, boolean fromHigh) {
        long senderBase = fromHigh ? highBase : lowBase;
        long receiverBase = fromHigh ? lowBase : highBase;
        byte[] b = items.reserve(MAX_PACKET_BYTES);
        int at = items.size();
        at += BinaryData.encodeLong(p.timestampNanos - baseTime, b, at);
        at += BinaryData.encodeBoolean(fromHigh, b, at);
        at += BinaryData.encodeInt((int) (p.seq - senderBase), b, at);
        at += BinaryData.encodeInt((int) (p.ack - receiverBase), b, at);
        at = nullableInt(p.ipVersion == 4 && p.ipId >= 0, p.ipId, b, at);
        at += BinaryData.encodeInt(p.ttl, b, at);
        at += BinaryData.encodeInt(p.ipTotalLength, b, at);
        at += BinaryData.encodeInt(p.flags, b, at);
        at += BinaryData.encodeInt(p.window, b, at);
        at += BinaryData.encodeInt(p.payloadLength, b, at);
        at += BinaryData.encodeInt(p.capturedLength, b, at);
        at += BinaryData.encodeInt(p.wireLength, b, at);
        at = nullableInt(p.mss >= 0, p.mss, b, at);
        at = nullableInt(p.windowScale >= 0, p.windowScale, b, at);
        at += BinaryData.encodeBoolean(p.sackPermitted, b, at);
        if (p.sackCount > 0) {
            at += BinaryData.encodeLong(p.sackCount, b, at);
            for (int s = 0; s < p.sackCount; s++) {
                at += BinaryData.encodeInt((int) (p.sackLeft[s] - receiverBase), b, at);
                at += BinaryData.encodeInt((int) (p.sackRight[s] - receiverBase), b, at);
            }
        }
        b[at++] = 0; // end of the SACK array
        boolean ts = p.tsVal >= 0;
        at = nullableLong(ts, p.tsVal, b, at);
        at = nullableLong(ts, p.tsEcr, b, at);
        at += BinaryData.encodeBoolean(p.truncation != 0, b, at);
        items.advanceTo(at);
        encoded++;
    }

    /** A ["null", "int"] union: branch index 0 (null) or 1 and the value. */
    private static int nullableInt(boolean present, int value, byte[] b, int at) {
        if (!present) {
            b[at] = 0;
            return at + 1;
        }
        b[at] = 2; // zig-zag varint of branch index 1
        return at + 1 + BinaryData.encodeInt(value, b, at + 1);
    }

    /** A ["null", "long"] union. */
    private static int nullableLong(boolean present, long value, byte[] b, int at) {
        if (!present) {
            b[at] = 0;
            return at + 1;
        }
        b[at] = 2;
        return at + 1 + BinaryData.encodeLong(value, b, at + 1);
    }

    /** A growable byte array the encoder writes into; reset keeps the capacity. */
    static final class Buffer extends OutputStream {
        private byte[] bytes;
        private int size;

        Buffer(int capacity) {
            bytes = new byte[capacity];
        }

        @Override
        public void write(int b) {
            ensure(1);
            bytes[size++] = (byte) b;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            ensure(len);
            System.arraycopy(b, off, bytes, size, len);
            size += len;
        }

        void reset() {
            size = 0;
        }

        void dropLast(byte expected) {
            if (size == 0 || bytes[size - 1] != expected) {
                throw new IllegalStateException("PacketBatch no longer ends with its packets array");
            }
            size--;
        }

        int size() {
            return size;
        }

        byte[] array() {
            return bytes;
        }

        /** Room for {@code n} more bytes at {@link #size()}: the array to write them into. */
        byte[] reserve(int n) {
            ensure(n);
            return bytes;
        }

        void advanceTo(int newSize) {
            size = newSize;
        }

        private void ensure(int n) {
            if (size + n > bytes.length) {
                bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + n));
            }
        }
    }
}
