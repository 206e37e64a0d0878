package io.flowtrace.jobs.openvpn;

import io.flowtrace.avro.mapping.OpenVpnBatches;
import io.flowtrace.avro.mapping.PacketBatches;
import io.flowtrace.jobs.flow.FlowBatch;
import io.flowtrace.jobs.flow.FlowBatchTypeInfo;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Splits the validated records of the packets topic by contract: TCP (PacketBatch, PacketEvent)
 * continue to the flow analysis, OpenVpnBatches go to the {@link #OPENVPN} side output. One
 * fingerprint comparison per record (8 bytes of the single-object header), chained to the source.
 */
public final class OpenVpnRouting extends ProcessFunction<FlowBatch, FlowBatch> {
    private static final long serialVersionUID = 1L;

    public static final OutputTag<FlowBatch> OPENVPN = new OutputTag<>("openvpn", FlowBatchTypeInfo.INSTANCE) {};

    @Override
    public void processElement(FlowBatch record, Context ctx, Collector<FlowBatch> out) {
        if (OpenVpnBatches.isOpenVpnBatch(PacketBatches.fingerprintOf(record.value))) {
            ctx.output(OPENVPN, record);
        } else {
            out.collect(record);
        }
    }
}
