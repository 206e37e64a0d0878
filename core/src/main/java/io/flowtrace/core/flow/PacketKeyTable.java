package io.flowtrace.core.flow;

import java.util.Arrays;
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

    static long word(byte[] b, int from, int len) {
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

    /** The value under {@code key}, or null; remembers the key's direction ({@link #lastSourceIsLow}). */
    Object get(CanonicalKey key) {
        lastSourceIsLow = key.sourceIsLow;
        int mask = slots.length - 1;
        for (int i = key.hash & mask; ; i = (i + 1) & mask) {
            Keyed k = slots[i];
            if (k == null) {
                return null;
            }
            if (k.a0() == key.a0
                    && k.a1() == key.a1
                    && k.b0() == key.b0
                    && k.b1() == key.b1
                    && k.ports() == key.ports
                    && k.meta() == key.meta) {
                return k;
            }
        }
    }

    /** True when the packet of the last {@link #get} was sent by the low endpoint of its canonical key. */
    boolean lastSourceIsLow() {
        return lastSourceIsLow;
    }

    /** Inserts a value whose key is absent (callers check with {@link #get} first). */
    void put(Keyed value) {
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
        Arrays.fill(slots, null);
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

    static int compare(long x0, long x1, int xp, long y0, long y1, int yp) {
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

    static int hash(long a0, long a1, long b0, long b1, int ports, int meta) {
        long h = a0 * 0x9E3779B97F4A7C15L;
        h = (h ^ (h >>> 29) ^ a1) * 0xBF58476D1CE4E5B9L;
        h = (h ^ (h >>> 31) ^ b0) * 0x94D049BB133111EBL;
        h = (h ^ (h >>> 29) ^ b1) * 0x9E3779B97F4A7C15L;
        h = (h ^ (h >>> 32) ^ ((long) ports << 20) ^ meta) * 0xBF58476D1CE4E5B9L;
        return (int) (h ^ (h >>> 32));
    }
}
