package io.flowtrace.agent.packets;

import io.flowtrace.agent.batch.BatchKey;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.pcap.DecodedPacket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The Kafka key bytes of a packet's flow, remembered per flow: building the canonical key text
 * ({@link PacketEvents#flowKey}, two InetAddress round trips and string concatenation) costs more
 * than decoding the packet (measured in docs/agent.md), and a capture holds few flows and many
 * packets. Direct-mapped, fixed size, no allocation on a hit; a miss (new flow or a collision)
 * computes the key exactly as {@link PacketEvents#flowKey} does, so the bytes are always that text.
 */
final class FlowKeyCache {
    private static final int SLOTS = 1 << 14;

    private final int[] interfaceIds = new int[SLOTS];
    private final byte[][] lowAddr = new byte[SLOTS][];
    private final byte[][] highAddr = new byte[SLOTS][];
    private final int[] lowPort = new int[SLOTS];
    private final int[] highPort = new int[SLOTS];
    private final BatchKey[] keys = new BatchKey[SLOTS];

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
        int loPort = srcLow ? p.srcPort : p.dstPort;
        int hiPort = srcLow ? p.dstPort : p.srcPort;
        int h = interfaceId * 31 + loPort * 65599 + hiPort;
        for (int i = 0; i < n; i++) {
            h = h * 31 + lo[i];
            h = h * 17 + hi[i];
        }
        int slot = (h ^ (h >>> 16)) & (SLOTS - 1);
        BatchKey cached = keys[slot];
        if (cached != null && interfaceIds[slot] == interfaceId && lowPort[slot] == loPort && highPort[slot] == hiPort
                && lowAddr[slot].length == n && same(lowAddr[slot], lo, n) && same(highAddr[slot], hi, n)) {
            return cached;
        }
        BatchKey key = new BatchKey(PacketEvents.flowKey(vantage, p).getBytes(StandardCharsets.UTF_8), interfaceId);
        interfaceIds[slot] = interfaceId;
        lowAddr[slot] = Arrays.copyOf(lo, n);
        highAddr[slot] = Arrays.copyOf(hi, n);
        lowPort[slot] = loPort;
        highPort[slot] = hiPort;
        keys[slot] = key;
        return key;
    }

    /*
     * Plain loops over 4 or 16 bytes: Arrays.equals/compareUnsigned on ranges this short cost more in
     * their set-up than the comparison (a fifth of the batch path's samples in a JFR profile of
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

    private static boolean same(byte[] a, byte[] b, int n) {
        for (int i = 0; i < n; i++) {
            if (a[i] != b[i]) {
                return false;
            }
        }
        return true;
    }
}
