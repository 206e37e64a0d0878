package io.flowtrace.core.flow;

import io.flowtrace.core.net.Endpoint;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.core.tcp.AnalyzerConfig;
import io.flowtrace.core.tcp.TcpFlowAnalyzer;
import java.util.Arrays;

/**
 * The rules that cut one 5-tuple's packets into flow instances (docs/design.md, "Flow identity"), shared by the offline
 * tracker and the Flink operator so both produce the same flows.
 */
public final class FlowInstances {
    /** Lingering after both FINs or a RST, for retransmitted FINs and final ACKs (well under TIME_WAIT's 60 s). */
    public static final long CLOSED_LINGER_NANOS = 10_000_000_000L;

    /** Client and server of a new flow instance, and whether that was a guess. */
    public record Roles(Endpoint client, Endpoint server, boolean guessed) {}

    private FlowInstances() {}

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
     * A SYN (without ACK) starts a new instance when the current one is closed, has been idle past
     * its timeout, or is established and the SYN carries a different ISN (port reuse). A SYN with a
     * new ISN before establishment is a retried attempt of the same connection.
     */
    public static boolean startsNewInstance(
            TcpFlowAnalyzer current, DecodedPacket p, long lastSeenNanos, AnalyzerConfig config) {
        if (!p.hasFlag(DecodedPacket.SYN) || p.hasFlag(DecodedPacket.ACK)) {
            return false;
        }
        if (current.closed() || expired(current, lastSeenNanos, p.timestampNanos, config)) {
            return true;
        }
        return (current.established() || current.clientGuessed()) && p.seq != current.clientIsn();
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

    /** When a flow last seen at {@code lastSeenNanos} times out (see {@link #expired}). */
    public static long deadlineNanos(TcpFlowAnalyzer flow, long lastSeenNanos, AnalyzerConfig config) {
        if (flow.closed()) {
            return lastSeenNanos + CLOSED_LINGER_NANOS;
        }
        return lastSeenNanos + (flow.established() ? config.idleTimeoutNanos() : config.halfOpenTimeoutNanos());
    }

    /** Whether a flow last seen at {@code lastSeenNanos} has timed out at {@code now}. */
    public static boolean expired(TcpFlowAnalyzer flow, long lastSeenNanos, long now, AnalyzerConfig config) {
        long idle = now - lastSeenNanos;
        if (flow.closed()) {
            return idle >= CLOSED_LINGER_NANOS;
        }
        return idle >= (flow.established() ? config.idleTimeoutNanos() : config.halfOpenTimeoutNanos());
    }
}
