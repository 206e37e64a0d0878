package io.flowtrace.jobs.flow;

import io.flowtrace.core.flow.FlowLifecycle;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.tcp.TcpFlowAnalyzer;

/**
 * What the job keeps per flow key: the lifecycle's state of the current instance (its analyser,
 * id, last seen, expiry clock, update schedule: {@link FlowLifecycle.State}, what {@code
 * FlowTracker} keeps offline), plus the operator's own timer, vantage and counts. Mutable: the
 * function changes it in place and writes it back.
 */
public final class FlowState extends FlowLifecycle.State {
    /** No timer registered. */
    static final long NO_TIMER = Long.MIN_VALUE;

    /**
     * Where the flow was captured, from the record that started the instance: timers report the flow
     * without reading the key text back. Null only in state written before it was kept (layout 1 of
     * {@link FlowStateSerializer}); the function then takes it from the key once.
     */
    VantagePoint vantage;
    /** The one event-time timer registered for this key (ms), or {@link #NO_TIMER}. */
    long timerMs = NO_TIMER;
    /** Packets of this instance that arrived behind the watermark (still analysed). */
    long latePackets;
    /** Events emitted so far: the index of the next one. */
    long events;

    FlowState() {}

    FlowState(TcpFlowAnalyzer flow, VantagePoint vantage, long instance) {
        this.flow = flow;
        this.vantage = vantage;
        this.instance = instance;
    }

    public TcpFlowAnalyzer flow() {
        return flow;
    }

    public VantagePoint vantage() {
        return vantage;
    }

    public long instance() {
        return instance;
    }
}
