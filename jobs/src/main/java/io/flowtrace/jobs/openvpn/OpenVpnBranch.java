package io.flowtrace.jobs.openvpn;

import io.flowtrace.avro.DeadLetter;
import io.flowtrace.avro.OpenVpnServerWindow;
import io.flowtrace.avro.OpenVpnSessionRecord;
import io.flowtrace.jobs.flow.FlowBatch;
import io.flowtrace.jobs.flow.FlowKeySelector;
import io.flowtrace.jobs.window.FlowWindows;
import io.flowtrace.jobs.window.TumblingWindows;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;

/**
 * OpenVPN (docs/job.md, "OpenVPN"): the routed OpenVpnBatches keyed by UDP flow → sessions →
 * per-server windows of each of {@link FlowWindows#SIZES}. The sessions' side output holds the
 * dead letters of the batches.
 */
public record OpenVpnBranch(
        SingleOutputStreamOperator<OpenVpnSessionRecord> sessions, DataStream<OpenVpnServerWindow> serverWindows) {

    public static OpenVpnBranch of(DataStream<FlowBatch> routed) {
        SingleOutputStreamOperator<OpenVpnSessionRecord> sessions = routed.keyBy(new FlowKeySelector())
                .process(new OpenVpnSessionFunction())
                .name("openvpn-sessions")
                .uid("openvpn-sessions");
        return new OpenVpnBranch(
                sessions,
                TumblingWindows.union(
                        FlowWindows.SIZES,
                        "openvpn-server-windows",
                        size -> sessions.keyBy(new OpenVpnServerWindows.ServerKey())
                                .window(TumblingEventTimeWindows.of(size))
                                .process(new OpenVpnServerWindows())));
    }

    public DataStream<DeadLetter> deadLetters() {
        return sessions.getSideOutput(OpenVpnSessionFunction.DEAD_LETTERS);
    }
}
