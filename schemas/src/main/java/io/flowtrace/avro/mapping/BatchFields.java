package io.flowtrace.avro.mapping;

import io.flowtrace.avro.Vantage;
import io.flowtrace.core.net.Endpoint;
import io.flowtrace.core.net.FlowKey;
import io.flowtrace.core.pcap.DecodedPacket;
import java.nio.ByteBuffer;

/**
 * What the two batch records (PacketBatch.avsc, OpenVpnBatch.avsc) share: one flow's endpoint pair
 * in canonical order (each packet says which end sent it), and a base capture time to which each
 * packet adds its offset.
 */
final class BatchFields {
    private BatchFields() {}

    /** The canonical flow key of a batch's endpoints, as {@link PacketEvents#flowKey} of any of its packets. */
    static String flowKey(Vantage vantage, ByteBuffer lowAddr, int lowPort, ByteBuffer highAddr, int highPort) {
        return FlowKey.of(
                        PacketEvents.vantagePoint(vantage),
                        new Endpoint(bytes(lowAddr), lowPort),
                        new Endpoint(bytes(highAddr), highPort))
                .canonical();
    }

    /** Why a packet's capture time (base + offset) is not one, or null: overflow, then {@link PacketEvents#captureTimeProblem}. */
    static String packetTimeProblem(long base, long offset, long nowNanos) {
        long time = base + offset;
        if (((base ^ time) & (offset ^ time)) < 0) {
            return "time offset " + offset + " ns overflows the base time " + base + " ns";
        }
        return PacketEvents.captureTimeProblem(time, nowNanos);
    }

    /** A batched packet's addresses and ports, from the batch's endpoint pair and the packet's direction. */
    static void fillEndpoints(
            DecodedPacket out, boolean fromHigh, ByteBuffer lowAddr, int lowPort, ByteBuffer highAddr, int highPort) {
        ByteBuffer src = fromHigh ? highAddr : lowAddr;
        ByteBuffer dst = fromHigh ? lowAddr : highAddr;
        out.addrLength = src.remaining();
        src.duplicate().get(out.srcAddr, 0, out.addrLength);
        dst.duplicate().get(out.dstAddr, 0, out.addrLength);
        out.srcPort = fromHigh ? highPort : lowPort;
        out.dstPort = fromHigh ? lowPort : highPort;
    }

    /** The remaining bytes of {@code b}, copied; {@code b}'s position is left alone. */
    static byte[] bytes(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return a;
    }
}
