package io.flowtrace.core.flow;

import io.flowtrace.core.net.Endpoint;
import io.flowtrace.core.pcap.DecodedPacket;
import java.util.Arrays;

/**
 * Who a new flow instance's client is and what its id is (docs/design.md, "Flow identity"), for the offline
 * tracker and the Flink operator alike; when an instance starts and ends is {@link FlowLifecycle}'s.
 */
public final class InstanceIdentity {
    /** Client and server of a new flow instance, and whether that was a guess. */
    public record Roles(Endpoint client, Endpoint server, boolean guessed) {}

    private InstanceIdentity() {}

    /**
     * Who is the client of a flow whose first packet is {@code p}: the sender of a SYN, the
     * receiver of a SYN-ACK; otherwise a guess: the side with the higher port (ephemeral range)
     * is the client, on a tie the sender.
     */
    public static Roles roles(DecodedPacket p) {
        Endpoint src = new Endpoint(Arrays.copyOf(p.srcAddr, p.addrLength), p.srcPort);
        Endpoint dst = new Endpoint(Arrays.copyOf(p.dstAddr, p.addrLength), p.dstPort);
        boolean syn = p.hasFlag(DecodedPacket.SYN);
        boolean ack = p.hasFlag(DecodedPacket.ACK);
        if (syn && !ack) {
            return new Roles(src, dst, false);
        }
        if (syn) {
            return new Roles(dst, src, false);
        }
        return p.srcPort >= p.dstPort ? new Roles(src, dst, true) : new Roles(dst, src, true);
    }

    /**
     * The instance id of a flow whose first packet was captured at {@code firstPacketNanos}: that
     * time in microseconds. Stable across offline and streaming analysis and unique per 5-tuple
     * (two connections cannot start in the same microsecond on one tuple), also after an idle
     * flow was forgotten and its tuple reused.
     */
    public static long instanceId(long firstPacketNanos) {
        return Math.floorDiv(firstPacketNanos, 1000);
    }
}
