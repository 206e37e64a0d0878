package io.flowtrace.avro.mapping;

import io.flowtrace.avro.PacketBatch;
import io.flowtrace.avro.Vantage;
import io.flowtrace.core.net.Endpoint;
import io.flowtrace.core.net.FlowKey;
import io.flowtrace.core.net.VantagePoint;
import java.util.Arrays;

/**
 * The header of a single-object encoded {@link PacketBatch} v1 (everything before its packets) and
 * the packet count its array claims, read without decoding a packet: the job's source keys, times
 * and validates a batch with it and leaves the packets to the one decode in the flow function.
 * Hand-written on the raw bytes because the generated decoder can only decode the whole record
 * (an Avro projection would still walk every packet to skip the array), and so every length is
 * checked against the bytes present before anything is allocated. It reads exactly the field order
 * of PacketBatch.avsc; {@code PacketBatchHeaderTest} pins it to the generated class.
 */
public final class PacketBatchHeader {
    /** Single-object marker and fingerprint. */
    public static final int SINGLE_OBJECT_HEADER_BYTES = 10;

    public String agentId;
    public String interfaceName;
    public int linkType;
    public int ipVersion;
    public byte[] lowAddr;
    public int lowPort;
    public byte[] highAddr;
    public int highPort;
    public long baseTimeNs;
    public long lowSeqBase;
    public long highSeqBase;
    /** Items claimed by the first block of the packets array (Avro writers write one block). */
    public long claimedPackets;
    /** The first block's count as written (negative: a byte size follows) and where the bytes after it start. */
    long firstBlockCount;

    int afterFirstBlockCount;

    /**
     * Reads the header of a single-object encoded PacketBatch whose fingerprint is
     * {@link PacketBatches#FINGERPRINT} (the caller checked it).
     *
     * @throws MalformedBatchException when a length or number does not fit the bytes present
     */
    public static PacketBatchHeader read(byte[] value) throws MalformedBatchException {
        AvroCursor c = new AvroCursor(value, SINGLE_OBJECT_HEADER_BYTES);
        PacketBatchHeader h = new PacketBatchHeader();
        h.agentId = c.string("vantage.agent_id");
        h.interfaceName = c.string("vantage.interface_name");
        h.linkType = c.intValue("link_type");
        h.ipVersion = c.intValue("ip_version");
        h.lowAddr = c.bytes("low_addr");
        h.lowPort = c.intValue("low_port");
        h.highAddr = c.bytes("high_addr");
        h.highPort = c.intValue("high_port");
        h.baseTimeNs = c.varint("base_time_ns");
        h.lowSeqBase = c.varint("low_seq_base");
        h.highSeqBase = c.varint("high_seq_base");
        long count = c.varint("packets");
        h.firstBlockCount = count;
        h.afterFirstBlockCount = c.position();
        h.claimedPackets = count < 0 ? -count : count; // a negative count is followed by the block's byte size
        return h;
    }

    public Vantage vantage() {
        return new Vantage(agentId, interfaceName);
    }

    /** The canonical flow key of the batch's endpoints, as {@link PacketBatches#flowKey}. */
    public String flowKey() {
        return FlowKey.of(
                        new VantagePoint(agentId, interfaceName),
                        new Endpoint(lowAddr, lowPort),
                        new Endpoint(highAddr, highPort))
                .canonical();
    }

    /**
     * Why this header cannot be analysed, or null: the vantage, endpoint and time rules of
     * {@link PacketEvents#invalidReason(io.flowtrace.avro.PacketEvent, long)}, endpoints in canonical
     * order, and a packet count between 1 and {@code maxPackets}.
     */
    public String invalidReason(long nowNanos, int maxPackets) {
        String vantage = PacketEvents.vantageProblem(vantage());
        if (vantage != null) {
            return vantage;
        }
        if (ipVersion != 4 && ipVersion != 6) {
            return "ip_version " + ipVersion + " is neither 4 nor 6";
        }
        int want = ipVersion == 4 ? 4 : 16;
        if (lowAddr.length != want || highAddr.length != want) {
            return "address lengths " + lowAddr.length + "/" + highAddr.length + " do not match IPv" + ipVersion;
        }
        if (lowPort < 0 || lowPort > 65535 || highPort < 0 || highPort > 65535) {
            return "port out of range: " + lowPort + " / " + highPort;
        }
        int order = Arrays.compareUnsigned(lowAddr, highAddr);
        if (order > 0 || order == 0 && lowPort > highPort) {
            return "endpoints not in canonical order (low_addr:low_port must sort first)";
        }
        if (lowSeqBase < 0 || lowSeqBase > 0xffffffffL || highSeqBase < 0 || highSeqBase > 0xffffffffL) {
            return "sequence bases outside 32 bits: " + lowSeqBase + "/" + highSeqBase;
        }
        String time = PacketEvents.captureTimeProblem(baseTimeNs, nowNanos);
        if (time != null) {
            return "base " + time;
        }
        if (claimedPackets < 1 || claimedPackets > maxPackets) {
            return "a batch of " + claimedPackets + " packets (1 to " + maxPackets + " accepted)";
        }
        return null;
    }

    /** A header whose encoding does not fit the record. */
    public static final class MalformedBatchException extends Exception {
        private static final long serialVersionUID = 1L;

        MalformedBatchException(String message) {
            super(message);
        }
    }
}
