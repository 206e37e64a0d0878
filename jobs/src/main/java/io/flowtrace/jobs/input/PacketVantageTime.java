package io.flowtrace.jobs.input;

import io.flowtrace.avro.OpenVpnBatch;
import io.flowtrace.avro.SingleObjectCodec;
import io.flowtrace.avro.mapping.OpenVpnBatches;
import io.flowtrace.avro.mapping.PacketBatchTimes;
import io.flowtrace.avro.mapping.PacketBatches;
import io.flowtrace.core.net.FlowKey;
import io.flowtrace.jobs.flow.FlowBatch;
import java.io.IOException;

/**
 * The vantage and watermark time of a record the packets source accepted. The source validates a
 * PacketEvent whole but only a batch's header (its packets are decoded once, in the flow function),
 * so a batch's time here is that of its earliest valid packet ({@link PacketBatchTimes}; for an
 * OpenVPN batch the same by {@link OpenVpnBatches#invalidPacketReason}): its header's base time never
 * moves a watermark by itself. For an honest batch both are its first packet's time. The record's own
 * timestamp (the header's base time) is left as it was: only what moves the watermark changes.
 */
final class PacketVantageTime implements VantageTime<FlowBatch> {
    private static final long serialVersionUID = 1L;
    private static final long NANOS_PER_MS = 1_000_000L;

    private transient SingleObjectCodec<OpenVpnBatch> openVpn;

    /** The vantage part of the flow key "vantage|low|high", split where {@link FlowKey#parse} splits it. */
    @Override
    public String vantage(FlowBatch b) {
        int low = FlowKey.vantageEnd(b.key);
        return low > 0 ? b.key.substring(0, low) : b.key;
    }

    @Override
    public long time(FlowBatch b, long timestamp, long nowMs) {
        long fingerprint = PacketBatches.fingerprintOf(b.value);
        long nowNs = nowMs * NANOS_PER_MS;
        if (fingerprint == PacketBatches.FINGERPRINT) {
            return ms(PacketBatchTimes.earliestValidTimeNs(b.value, nowNs));
        }
        if (OpenVpnBatches.isOpenVpnBatch(fingerprint)) {
            return ms(openVpnTimeNs(b.value, nowNs));
        }
        return timestamp; // a PacketEvent, validated whole by the source
    }

    private long openVpnTimeNs(byte[] value, long nowNs) {
        if (openVpn == null) {
            openVpn = OpenVpnBatches.codec();
        }
        OpenVpnBatch batch;
        try {
            batch = openVpn.decode(value);
        } catch (IOException | RuntimeException e) {
            return PacketBatchTimes.NONE;
        }
        long earliest = PacketBatchTimes.NONE;
        for (int i = 0; i < batch.getPackets().size(); i++) {
            if (OpenVpnBatches.invalidPacketReason(batch, i, nowNs) == null) {
                long t = batch.getBaseTimeNs() + batch.getPackets().get(i).getTimeOffsetNs();
                earliest = earliest == PacketBatchTimes.NONE ? t : Math.min(earliest, t);
            }
        }
        return earliest;
    }

    private static long ms(long ns) {
        return ns == PacketBatchTimes.NONE ? Long.MIN_VALUE : Math.floorDiv(ns, NANOS_PER_MS);
    }
}
