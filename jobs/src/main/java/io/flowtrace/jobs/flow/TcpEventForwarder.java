package io.flowtrace.jobs.flow;

import io.flowtrace.avro.FlowIdentity;
import io.flowtrace.avro.TcpEvent;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.avro.mapping.TcpEvents;
import io.flowtrace.core.tcp.TcpEventSink;
import io.flowtrace.core.tcp.TcpFlowAnalyzer;
import io.flowtrace.core.tcp.TcpFlowEvent;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;

/**
 * The sink {@link FlowAnalysisFunction} passes with each packet to core's analyser: sends the
 * packet's events to the {@link FlowAnalysisFunction#TCP_EVENTS} side output as the contract's
 * {@link TcpEvent}, numbered within their flow instance ({@link FlowState#events}). One per
 * function instance, bound to the current element's context and flow before each packet.
 */
final class TcpEventForwarder implements TcpEventSink {
    private final Counter unmapped;
    private KeyedProcessFunction<String, FlowBatch, FlowSummary>.Context ctx;
    private FlowState flow;
    private FlowIdentity identity;

    /** @param unmapped counts core events the contract has no kind for */
    TcpEventForwarder(Counter unmapped) {
        this.unmapped = unmapped;
    }

    TcpEventForwarder bind(KeyedProcessFunction<String, FlowBatch, FlowSummary>.Context ctx, FlowState flow) {
        this.ctx = ctx;
        this.flow = flow;
        this.identity = null;
        return this;
    }

    @Override
    public void accept(TcpFlowEvent event) {
        if (identity == null) { // built on the first event only: most packets cause none
            TcpFlowAnalyzer f = flow.flow;
            identity = new FlowIdentity(
                    PacketEvents.toAvro(flow.vantage),
                    f.client().toString(),
                    f.server().toString(),
                    flow.instance,
                    f.clientGuessed());
        }
        TcpEvent avro = TcpEvents.toAvro(identity, flow.events, event);
        if (avro == null) {
            unmapped.inc();
            return;
        }
        flow.events++;
        ctx.output(FlowAnalysisFunction.TCP_EVENTS, avro);
    }
}
