package io.flowtrace.core.flow;

import io.flowtrace.core.pcap.DecodedPacket;
import java.util.function.Consumer;

/**
 * Open-addressing hash table (linear probing, backward-shift deletion) from a packet's canonical
 * flow key to a value, compared on primitive words so a lookup per packet allocates nothing.
 * Hand-written because a HashMap lookup needs a key object per packet (≈100 bytes of garbage at
 * millions of packets per second).
 */
final class PacketKeyTable {
    /** The primitive key a value carries: canonical low/high addresses as two 64-bit words each. */
    interface Keyed {
        long a0();

        long a1();

        long b0();

        long b1();

        /** low port << 16 | high port */
        int ports();

        /** address length | interface id << 8 */
        int meta();
    }

    private Keyed[] slots = new Keyed[1024];
    private int size;
    /** Whether the last {@link #get}'s packet came from its key's low endpoint (its direction, for free). */
    private boolean lastSourceIsLow;

    static int meta(int addrLength, int interfaceId) {
        return addrLength | (interfaceId << 8);
    }

    /** Big-endian packing of a 4- or 16-byte address into two words (unsigned order = byte order). */
    static long[] words(byte[] address) {
        return new long[] {word(address, 0, address.length), address.length > 8 ? word(address, 8, address.length) : 0};
    }

    private static long word(byte[] b, int from, int len) {
        if (len == 4) { // IPv4, the common case: one big-endian int in the high half
            return ((long) ((b[0] & 0xff) << 24 | (b[1] & 0xff) << 16 | (b[2] & 0xff) << 8 | (b[3] & 0xff))) << 32;
        }
        long w = 0;
        int end = Math.min(from + 8, len);
        for (int i = from; i < from + 8; i++) {
            w = (w << 8) | (i < end ? b[i] & 0xff : 0);
        }
        return w;
    }

    int size() {
        return size;
    }

    /**
     * Which of {@code shards} trackers owns {@code p}'s flow: a function of the canonical key, so
     * both directions land on the same one. Taken from the high bits of a remix of the table's
     * hash, so the flows of one shard still spread over all of its table's slots.
     */
    static int shardOf(DecodedPacket p, int shards) {
        long s0 = word(p.srcAddr, 0, p.addrLength);
        long s1 = p.addrLength > 8 ? word(p.srcAddr, 8, p.addrLength) : 0;
        long d0 = word(p.dstAddr, 0, p.addrLength);
        long d1 = p.addrLength > 8 ? word(p.dstAddr, 8, p.addrLength) : 0;
        boolean srcLow = compare(s0, s1, p.srcPort, d0, d1, p.dstPort) <= 0;
        int h = srcLow
                ? hash(s0, s1, d0, d1, (p.srcPort << 16) | p.dstPort, meta(p.addrLength, p.interfaceId))
                : hash(d0, d1, s0, s1, (p.dstPort << 16) | p.srcPort, meta(p.addrLength, p.interfaceId));
        int mixed = h * 0x9E3779B9;
        return (int) (((mixed >>> 1) * (long) shards) >>> 31);
    }

    Object get(DecodedPacket p) {
        long s0 = word(p.srcAddr, 0, p.addrLength);
        long s1 = p.addrLength > 8 ? word(p.srcAddr, 8, p.addrLength) : 0;
        long d0 = word(p.dstAddr, 0, p.addrLength);
        long d1 = p.addrLength > 8 ? word(p.dstAddr, 8, p.addrLength) : 0;
        boolean srcLow = compare(s0, s1, p.srcPort, d0, d1, p.dstPort) <= 0;
        lastSourceIsLow = srcLow;
        long a0 = srcLow ? s0 : d0;
        long a1 = srcLow ? s1 : d1;
        long b0 = srcLow ? d0 : s0;
        long b1 = srcLow ? d1 : s1;
        int ports = srcLow ? (p.srcPort << 16) | p.dstPort : (p.dstPort << 16) | p.srcPort;
        int meta = meta(p.addrLength, p.interfaceId);
        int mask = slots.length - 1;
        for (int i = hash(a0, a1, b0, b1, ports, meta) & mask; ; i = (i + 1) & mask) {
            Keyed k = slots[i];
            if (k == null) {
                return null;
            }
            if (k.a0() == a0
                    && k.a1() == a1
                    && k.b0() == b0
                    && k.b1() == b1
                    && k.ports() == ports
                    && k.meta() == meta) {
                return k;
            }
        }
    }

    /** True when the packet of the last {@link #get} was sent by the low endpoint of its canonical key. */
    boolean lastSourceIsLow() {
        return lastSourceIsLow;
    }

    /** Inserts a value whose key is absent (callers check with {@link #get} first). */
    void put(DecodedPacket ignored, Keyed value) {
        if ((size + 1) * 2 > slots.length) {
            resize();
        }
        insert(value);
        size++;
    }

    private void insert(Keyed value) {
        int mask = slots.length - 1;
        int i = hash(value) & mask;
        while (slots[i] != null) {
            i = (i + 1) & mask;
        }
        slots[i] = value;
    }

    void remove(Keyed value) {
        int mask = slots.length - 1;
        int i = hash(value) & mask;
        while (slots[i] != value) {
            if (slots[i] == null) {
                return;
            }
            i = (i + 1) & mask;
        }
        // backward-shift deletion keeps probe chains intact without tombstones
        int hole = i;
        for (int j = (hole + 1) & mask; slots[j] != null; j = (j + 1) & mask) {
            int home = hash(slots[j]) & mask;
            boolean movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
            if (movable) {
                slots[hole] = slots[j];
                hole = j;
            }
        }
        slots[hole] = null;
        size--;
    }

    void forEachValue(Consumer<Keyed> action) {
        for (Keyed k : slots) {
            if (k != null) {
                action.accept(k);
            }
        }
    }

    void clear() {
        java.util.Arrays.fill(slots, null);
        size = 0;
    }

    private void resize() {
        Keyed[] old = slots;
        slots = new Keyed[old.length * 2];
        for (Keyed k : old) {
            if (k != null) {
                insert(k);
            }
        }
    }

    private static int compare(long x0, long x1, int xp, long y0, long y1, int yp) {
        int c = Long.compareUnsigned(x0, y0);
        if (c != 0) {
            return c;
        }
        c = Long.compareUnsigned(x1, y1);
        return c != 0 ? c : Integer.compare(xp, yp);
    }

    private static int hash(Keyed k) {
        return hash(k.a0(), k.a1(), k.b0(), k.b1(), k.ports(), k.meta());
    }

    private static int hash(long a0, long a1, long b0, long b1, int ports, int meta) {
        long h = a0 * 0x9E3779B97F4A7C15L;
        h = (h ^ (h >>> 29) ^ a1) * 0xBF58476D1CE4E5B9L;
        h = (h ^ (h >>> 31) ^ b0) * 0x94D049BB133111EBL;
        h = (h ^ (h >>> 29) ^ b1) * 0x9E3779B97F4A7C15L;
        h = (h ^ (h >>> 32) ^ ((long) ports << 20) ^ meta) * 0xBF58476D1CE4E5B9L;
        return (int) (h ^ (h >>> 32));
    }
}
