package io.flowtrace.bench;

import io.flowtrace.core.pcap.DecodeStatus;
import io.flowtrace.core.pcap.DecodedPacket;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * One long bulk transfer with random loss, as a sender-side capture would show it: a window of
 * segments per round, each lost with probability {@code loss}, lost ones retransmitted after the
 * receiver's SACKed duplicate ACKs, the receiver ACKing every second segment. Seed 003's case (a
 * long lossy connection), at any length, reproducibly; sequence numbers start near 2^32 so the
 * flow wraps.
 */
public final class SyntheticLossyFlow {
    private SyntheticLossyFlow() {}

    public static DecodedPacket[] generate(int packets, double loss, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        List<DecodedPacket> out = new ArrayList<>(packets + 64);
        long isn = 0xffff0000L;
        long serverIsn = 1000;
        long t = 1_700_000_000_000_000_000L;
        int mss = 1448;
        int window = 64;
        t = handshake(out, t, isn, serverIsn);
        long next = 1; // relative sequence of the next new byte
        long cumAck = 1;
        List<Long> lost = new ArrayList<>();
        int ipId = 3;
        while (out.size() < packets) {
            // one round: retransmit last round's losses, then fill the window with new data
            List<Long> sent = new ArrayList<>();
            List<Long> stillLost = new ArrayList<>();
            for (long seq : lost) {
                out.add(packet(t += 10_000, true, isn + seq, serverIsn + 1, DecodedPacket.ACK, mss, ipId++));
                if (rnd.nextDouble() < loss) {
                    stillLost.add(seq);
                } else {
                    sent.add(seq);
                }
            }
            for (int i = lost.size(); i < window; i++) {
                long seq = next;
                next += mss;
                out.add(packet(t += 10_000, true, isn + seq, serverIsn + 1, DecodedPacket.ACK, mss, ipId++));
                if (rnd.nextDouble() < loss) {
                    stillLost.add(seq);
                } else {
                    sent.add(seq);
                }
            }
            lost = stillLost;
            // the receiver: cumulative ACK up to the first hole, SACK for what lies above it
            long hole = lost.isEmpty() ? next : lost.get(0);
            for (int i = 0; i < sent.size(); i += 2) {
                DecodedPacket a = packet(
                        t += 5_000,
                        false,
                        serverIsn + 1,
                        isn + Math.max(cumAck, Math.min(hole, sent.get(i) + mss)),
                        DecodedPacket.ACK,
                        0,
                        0);
                if (!lost.isEmpty() && sent.get(i) > hole) {
                    a.sackCount = 1;
                    a.sackLeft[0] = (isn + hole + mss) & 0xffffffffL;
                    a.sackRight[0] = (isn + sent.get(i) + mss) & 0xffffffffL;
                }
                out.add(a);
            }
            cumAck = Math.max(cumAck, hole);
            t += 1_000_000;
        }
        return out.subList(0, packets).toArray(new DecodedPacket[0]);
    }

    /** SYN, SYN-ACK, ACK 100 µs apart from {@code t}; returns the time of the last. */
    private static long handshake(List<DecodedPacket> out, long t, long isn, long serverIsn) {
        out.add(packet(t, true, isn, 0, DecodedPacket.SYN, 0, 0));
        out.add(packet(t += 100_000, false, serverIsn, isn + 1, DecodedPacket.SYN | DecodedPacket.ACK, 0, 1));
        out.add(packet(t += 100_000, true, isn + 1, serverIsn + 1, DecodedPacket.ACK, 0, 2));
        return t;
    }

    private static DecodedPacket packet(long t, boolean fromClient, long seq, long ack, int flags, int len, int ipId) {
        DecodedPacket p = new DecodedPacket();
        p.status = DecodeStatus.TCP;
        p.timestampNanos = t;
        p.ipVersion = 4;
        p.addrLength = 4;
        byte[] c = {10, 0, 0, 1};
        byte[] s = {10, 0, 0, 2};
        System.arraycopy(fromClient ? c : s, 0, p.srcAddr, 0, 4);
        System.arraycopy(fromClient ? s : c, 0, p.dstAddr, 0, 4);
        p.srcPort = fromClient ? 40000 : 443;
        p.dstPort = fromClient ? 443 : 40000;
        p.seq = seq & 0xffffffffL;
        p.ack = ack & 0xffffffffL;
        p.flags = flags;
        p.window = 65535;
        p.payloadLength = len;
        p.ipId = ipId & 0xffff;
        p.mss = -1;
        p.windowScale = -1;
        p.tsVal = -1;
        p.tsEcr = -1;
        if ((flags & DecodedPacket.SYN) != 0) {
            p.mss = 1460;
            p.windowScale = 7;
        }
        return p;
    }
}
