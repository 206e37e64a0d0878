package io.flowtrace.agent.packets;

import io.flowtrace.agent.batch.BatchKey;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.pcap.DecodedPacket;
import java.nio.charset.StandardCharsets;

/**
 * The Kafka key bytes of a packet's flow, remembered per flow: building the canonical key text
 * ({@link PacketEvents#flowKey}, two InetAddress round trips and string concatenation) costs more
 * than decoding the packet (measured in docs/agent.md), and a capture holds few flows and many
 * packets. Direct-mapped, fixed size, no allocation on a hit; a miss (new flow or a collision)
 * computes the key exactly as {@link PacketEvents#flowKey} does, so the bytes are always that text.
 */
final class FlowKeyCache {
    private static final int SLOTS = 1 << 14;

    /**
     * One object per cached flow, its endpoints packed into longs: a hit reads the slot array and
     * this entry (one or two cache lines) instead of six parallel arrays and two address arrays,
     * whose memory misses were the largest share of the batch path in a JFR profile of
     * AgentThroughput (docs/agent.md).
     */
    private static final class Entry {
        final int interfaceId;
        final int ports;
        final int length;
        final long lo0;
        final long lo1;
        final long hi0;
        final long hi1;
        final BatchKey key;

        Entry(int interfaceId, int ports, int length, long lo0, long lo1, long hi0, long hi1, BatchKey key) {
            this.interfaceId = interfaceId;
            this.ports = ports;
            this.length = length;
            this.lo0 = lo0;
            this.lo1 = lo1;
            this.hi0 = hi0;
            this.hi1 = hi1;
            this.key = key;
        }
    }

    private final Entry[] slots = new Entry[SLOTS];

    byte[] key(int interfaceId, VantagePoint vantage, DecodedPacket p) {
        return flow(interfaceId, vantage, p).bytes();
    }

    /** The key with its hash, one instance per cached flow (the batcher's map key). */
    BatchKey flow(int interfaceId, VantagePoint vantage, DecodedPacket p) {
        int n = p.addrLength;
        int c = compareUnsigned(p.srcAddr, p.dstAddr, n);
        boolean srcLow = c < 0 || c == 0 && p.srcPort <= p.dstPort;
        byte[] lo = srcLow ? p.srcAddr : p.dstAddr;
        byte[] hi = srcLow ? p.dstAddr : p.srcAddr;
        int ports = srcLow ? p.srcPort << 16 | p.dstPort : p.dstPort << 16 | p.srcPort;
        long lo0 = pack(lo, 0, n);
        long lo1 = pack(lo, 8, n);
        long hi0 = pack(hi, 0, n);
        long hi1 = pack(hi, 8, n);
        int h = interfaceId * 31 + ports * 65599;
        h = h * 31 + Long.hashCode(lo0 * 0x9E3779B97F4A7C15L ^ hi0);
        h = h * 17 + Long.hashCode(lo1 * 0x9E3779B97F4A7C15L ^ hi1);
        int slot = (h ^ (h >>> 16)) & (SLOTS - 1);
        Entry e = slots[slot];
        if (e != null
                && e.lo0 == lo0
                && e.hi0 == hi0
                && e.ports == ports
                && e.lo1 == lo1
                && e.hi1 == hi1
                && e.interfaceId == interfaceId
                && e.length == n) {
            return e.key;
        }
        BatchKey key = new BatchKey(PacketEvents.flowKey(vantage, p).getBytes(StandardCharsets.UTF_8), interfaceId);
        slots[slot] = new Entry(interfaceId, ports, n, lo0, lo1, hi0, hi1, key);
        return key;
    }

    /*
     * A plain loop over 4 or 16 bytes: Arrays.compareUnsigned on ranges this short costs more in its
     * set-up than the comparison (a fifth of the batch path's samples in a JFR profile of
     * AgentThroughput, docs/agent.md).
     */
    private static int compareUnsigned(byte[] a, byte[] b, int n) {
        for (int i = 0; i < n; i++) {
            int x = a[i] & 0xff;
            int y = b[i] & 0xff;
            if (x != y) {
                return x - y;
            }
        }
        return 0;
    }

    /** Bytes {@code from} .. min(from + 8, n) of an address as one big-endian long (0 when none). */
    private static long pack(byte[] a, int from, int n) {
        long v = 0;
        int to = Math.min(n, from + 8);
        for (int i = from; i < to; i++) {
            v = v << 8 | (a[i] & 0xff);
        }
        return v;
    }
}
