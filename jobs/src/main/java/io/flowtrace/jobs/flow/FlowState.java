package io.flowtrace.jobs.flow;

import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.tcp.TcpFlowAnalyzer;

/**
 * What the job keeps per flow key: the current instance's analyser and the bookkeeping that
 * {@code FlowTracker} keeps offline (instance id, last seen), plus the operator's own timer and
 * update schedule. Mutable: the function changes it in place and writes it back.
 */
public final class FlowState {
    /** No timer registered. */
    static final long NO_TIMER = Long.MIN_VALUE;

    TcpFlowAnalyzer flow;
    /**
     * Where the flow was captured, from the record that started the instance: timers report the flow
     * without reading the key text back. Null only in state written before it was kept (layout 1 of
     * {@link FlowStateSerializer}); the function then takes it from the key once.
     */
    VantagePoint vantage;
    /**
     * The instance's id: its first packet's capture time in microseconds
     * ({@code FlowInstances.instanceId}, FlowTracker's rule), so a port reuse gets a new, later id.
     */
    long instance;
    /** Latest capture time of the instance, nanoseconds. */
    long lastSeenNanos;
    /**
     * The flow's clock for expiry (ns): the latest of its packets' capture times and, for a packet
     * that arrived behind the watermark, the watermark at its arrival. Equal to {@link #lastSeenNanos}
     * while no packet is late. A flow whose packets all lag the job's event time (an agent replaying
     * its spool after an outage, a partition read behind the others) then gets its full timeout of
     * event time after each packet instead of expiring between two of them (docs/job.md, "Per-flow
     * state and time").
     */
    long clockNanos;
    /** The one event-time timer registered for this key (ms), or {@link #NO_TIMER}. */
    long timerMs = NO_TIMER;
    /** Event time (ms) of the next periodic upsert. */
    long nextUpdateMs;
    /** Packets of this instance that arrived behind the watermark (still analysed). */
    long latePackets;
    /** Events emitted so far: the index of the next one. */
    long events;
    /** Whether the update at FIN/RST time has been sent (the final record follows after the linger). */
    boolean closeReported;

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
