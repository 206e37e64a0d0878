package io.flowtrace.core.flow;

import io.flowtrace.core.pcap.DecodedPacket;

/**
 * A TCP packet's canonical flow key as primitive words (low endpoint first, as {@link PacketKeyTable}
 * stores keys), with its hash and which endpoint sent the packet. Mutable and reused: filled once
 * per packet, so a sharded analysis computes it on the thread that decodes the packet and both the
 * choice of shard and the flow table's lookup use it (the key's words and hash were 11 % of an
 * analysing thread's samples when each computed them again: docs/BENCHMARKS.md "The reader, the
 * flow key and the JSON writer").
 */
public final class CanonicalKey {
    long a0;
    long a1;
    long b0;
    long b1;
    /** low port << 16 | high port */
    int ports;
    /** address length | interface id << 8 */
    int meta;

    int hash;
    /** Whether the packet came from the key's low endpoint. */
    boolean sourceIsLow;

    /** Fills this key from {@code p} (a decoded TCP packet) and returns it. */
    public CanonicalKey of(DecodedPacket p) {
        long s0 = PacketKeyTable.word(p.srcAddr, 0, p.addrLength);
        long s1 = p.addrLength > 8 ? PacketKeyTable.word(p.srcAddr, 8, p.addrLength) : 0;
        long d0 = PacketKeyTable.word(p.dstAddr, 0, p.addrLength);
        long d1 = p.addrLength > 8 ? PacketKeyTable.word(p.dstAddr, 8, p.addrLength) : 0;
        sourceIsLow = PacketKeyTable.compare(s0, s1, p.srcPort, d0, d1, p.dstPort) <= 0;
        a0 = sourceIsLow ? s0 : d0;
        a1 = sourceIsLow ? s1 : d1;
        b0 = sourceIsLow ? d0 : s0;
        b1 = sourceIsLow ? d1 : s1;
        ports = sourceIsLow ? (p.srcPort << 16) | p.dstPort : (p.dstPort << 16) | p.srcPort;
        meta = PacketKeyTable.meta(p.addrLength, p.interfaceId);
        hash = PacketKeyTable.hash(a0, a1, b0, b1, ports, meta);
        return this;
    }

    /**
     * Which of {@code shards} trackers owns this key's flow when a capture's flows are spread over
     * several: both directions of a connection, and every instance on its 5-tuple, go to the same
     * one. Taken from the high bits of a remix of the table's hash, so the flows of one shard
     * still spread over all of its table's slots.
     */
    public int shard(int shards) {
        int mixed = hash * 0x9E3779B9;
        return (int) (((mixed >>> 1) * (long) shards) >>> 31);
    }
}
