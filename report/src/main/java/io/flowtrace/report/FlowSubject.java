package io.flowtrace.report;

import io.flowtrace.core.net.FlowKey;
import io.flowtrace.core.tcp.AdvertisedWindow;
import io.flowtrace.core.tcp.SlowStartStats;
import io.flowtrace.core.tcp.TcpDirectionStats;
import io.flowtrace.core.tcp.TcpFlowAnalyzer;

/**
 * What a {@link FlowField}'s value is computed from: one analysed flow instance and, while a
 * direction's fields are walked, the side that sent the data. One per walk, reused for both sides.
 * As {@link FlowValues} it is the typed accessor of a live flow ({@link FlowReport#values}).
 */
public final class FlowSubject implements FlowValues {
    private final FlowKey key;
    private final long instance;
    private final TcpFlowAnalyzer flow;
    private final long originNanos;
    private boolean ofClient;

    FlowSubject(FlowKey key, long instance, TcpFlowAnalyzer flow) {
        this.key = key;
        this.instance = instance;
        this.flow = flow;
        // slow-start times count from the first SYN, or from the first packet of a flow seen without one
        this.originNanos = flow.setup().firstSynNanos >= 0 ? flow.setup().firstSynNanos : flow.firstSeenNanos();
    }

    void side(FlowField.Side side) {
        ofClient = side == FlowField.Side.C2S;
    }

    @Override
    public Object value(FlowField field, FlowField.Side side) {
        if (field.scope() == FlowField.Scope.DIRECTION) {
            side(side);
        }
        return field.valueOf(this);
    }

    public FlowKey key() {
        return key;
    }

    public long instance() {
        return instance;
    }

    public TcpFlowAnalyzer flow() {
        return flow;
    }

    /** The time slow-start exits are measured from. */
    public long originNanos() {
        return originNanos;
    }

    /** The walked direction's sender statistics. */
    public TcpDirectionStats direction() {
        return ofClient ? flow.clientToServer() : flow.serverToClient();
    }

    /** The walked direction's slow start. */
    public SlowStartStats slowStart() {
        return flow.slowStart(ofClient);
    }

    /** The window scale shift of the walked side's advertised windows, -1 when unknown (AdvertisedWindow). */
    public int windowScale() {
        return AdvertisedWindow.scale(flow, ofClient);
    }

    /** The walked direction's sender MSS (for segments of a cwnd). */
    public long senderMss() {
        return flow.senderMss(ofClient);
    }

    static long micros(long nanos) {
        return Math.floorDiv(nanos, 1000);
    }

    /** Nanosecond gaps as whole microseconds. */
    static long[] micros(long[] nanos, int count) {
        long[] us = new long[count];
        for (int i = 0; i < count; i++) {
            us[i] = micros(nanos[i]);
        }
        return us;
    }
}
