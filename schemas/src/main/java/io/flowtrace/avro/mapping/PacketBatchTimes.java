package io.flowtrace.avro.mapping;

import io.flowtrace.avro.mapping.PacketBatchHeader.MalformedBatchException;

/**
 * The capture time by which a single-object encoded {@code PacketBatch} may move event time: the
 * earliest time of its packets that pass the job's packet rules ({@link PacketBatches#invalidPacketReason},
 * the same rules the flow function drops a packet by), read from the raw bytes without decoding the
 * batch, as {@link PacketBatchHeader} reads its header. The header's own base time never counts by
 * itself: a batch whose packets are all invalid has no time, so it cannot move a watermark. For an
 * honest batch this is its base time, since encoders take the base from the first packet.
 *
 * <p>Reads exactly the field order of BatchedPacket in PacketBatch.avsc; {@code PacketBatchTimesTest}
 * pins it to the generated class. Every length is bounded by the bytes present, so a hostile record
 * costs at most one pass over its bytes.
 */
public final class PacketBatchTimes {
    /** No packet of the batch has a valid time (or the record cannot be read). */
    public static final long NONE = Long.MIN_VALUE;

    private PacketBatchTimes() {}

    /** The earliest valid packet capture time in ns, or {@link #NONE}. */
    public static long earliestValidTimeNs(byte[] value, long nowNanos) {
        try {
            PacketBatchHeader h = PacketBatchHeader.read(value);
            if (h.invalidReason(nowNanos, PacketBatches.MAX_PACKETS) != null) {
                return NONE;
            }
            return walk(value, h, nowNanos);
        } catch (MalformedBatchException | RuntimeException e) {
            return NONE; // the flow function cannot decode it either: a dead letter, no time
        }
    }

    private static long walk(byte[] value, PacketBatchHeader h, long nowNanos) throws MalformedBatchException {
        AvroCursor c = new AvroCursor(value, h.afterFirstBlockCount);
        long earliest = Long.MAX_VALUE;
        long count = h.firstBlockCount;
        long seen = 0;
        while (count != 0) {
            if (count < 0) {
                c.varint("packets block size");
                count = -count;
            }
            seen += count;
            if (seen > PacketBatches.MAX_PACKETS) {
                throw new MalformedBatchException("PacketBatch holds more than " + PacketBatches.MAX_PACKETS);
            }
            for (long i = 0; i < count; i++) {
                long t = packet(c, h.baseTimeNs, nowNanos);
                if (t != NONE && t < earliest) {
                    earliest = t;
                }
            }
            count = c.varint("packets");
        }
        return earliest == Long.MAX_VALUE ? NONE : earliest;
    }

    /** One BatchedPacket: its capture time when its fields pass the packet rules, else {@link #NONE}. */
    private static long packet(AvroCursor c, long baseTimeNs, long nowNanos) throws MalformedBatchException {
        long offset = c.varint("time_offset_ns");
        c.bool("from_high");
        c.intValue("seq_offset");
        c.intValue("ack_offset");
        Integer ipId = c.present("ip_id") ? c.intValue("ip_id") : null;
        int ttl = c.intValue("ttl");
        int ipTotalLength = c.intValue("ip_total_length");
        int tcpFlags = c.intValue("tcp_flags");
        int window = c.intValue("window");
        int payloadLength = c.intValue("payload_length");
        int capturedLength = c.intValue("captured_length");
        int wireLength = c.intValue("wire_length");
        Integer mss = c.present("mss") ? c.intValue("mss") : null;
        Integer windowScale = c.present("window_scale") ? c.intValue("window_scale") : null;
        c.bool("sack_permitted");
        long sackBlocks = sackBlocks(c);
        Long tsVal = c.present("ts_val") ? c.varint("ts_val") : null;
        Long tsEcr = c.present("ts_ecr") ? c.varint("ts_ecr") : null;
        c.bool("truncated");
        String problem = PacketEvents.segmentProblem(
                window,
                payloadLength,
                ipTotalLength,
                tcpFlags,
                (int) Math.min(sackBlocks, Integer.MAX_VALUE),
                mss,
                windowScale,
                capturedLength,
                wireLength,
                ttl,
                ipId,
                tsVal,
                tsEcr);
        if (problem != null || BatchFields.packetTimeProblem(baseTimeNs, offset, nowNanos) != null) {
            return NONE;
        }
        return baseTimeNs + offset;
    }

    /** Skips a packet's sack_blocks array (blocks of {left_offset, right_offset}); returns its length. */
    private static long sackBlocks(AvroCursor c) throws MalformedBatchException {
        long total = 0;
        for (long count = c.varint("sack_blocks"); count != 0; count = c.varint("sack_blocks")) {
            if (count < 0) {
                c.varint("sack_blocks block size");
                count = -count;
            }
            for (long i = 0; i < count; i++) {
                c.intValue("left_offset");
                c.intValue("right_offset");
            }
            total += count;
        }
        return total;
    }
}
