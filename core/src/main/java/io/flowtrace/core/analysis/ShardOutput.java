package io.flowtrace.core.analysis;

import io.flowtrace.core.flow.FlowTracker;
import io.flowtrace.core.net.FlowKey;
import io.flowtrace.core.tcp.TcpEventSink;
import io.flowtrace.core.tcp.TcpEventSinkFactory;
import io.flowtrace.core.tcp.TcpFlowAnalyzer;
import io.flowtrace.core.tcp.TcpFlowEvent;
import java.util.List;

/**
 * What one shard's tracker reports (flow starts for the event sinks, events, finished flows), kept
 * with the place in capture order where a single tracker would have reported it, so the merge can
 * replay every shard's output as one tracker's: at a packet (its index), in the sweep after a
 * packet (by where each flow started), or at the end (by first packet's time). Items of one shard
 * at the same place keep their order; two shards never share a place, since a packet and a flow
 * belong to one shard.
 */
final class ShardOutput implements FlowTracker.FlowListener, FlowTracker.ReportOrder, TcpEventSinkFactory {
    private static final int AT_PACKET = 0;
    private static final int IN_SWEEP = 1;
    private static final int AT_END = 2;

    /** A flow instance's identity and, once the merge has asked the real factory, its event sink. */
    static final class FlowOut {
        final FlowKey key;
        final long instance;
        TcpEventSink sink;

        FlowOut(FlowKey key, long instance) {
            this.key = key;
            this.instance = instance;
        }
    }

    /**
     * One reported item: a flow's start (event == null, analyzer == null), one of its events, or
     * its report (analyzer != null); ordered by (packet, phase, a, b).
     */
    record Emitted(long packet, int phase, long a, long b, FlowOut flow, TcpFlowEvent event, TcpFlowAnalyzer analyzer) {
        int compareTo(Emitted o) {
            int c = Long.compare(packet, o.packet);
            if (c == 0) {
                c = Integer.compare(phase, o.phase);
            }
            if (c == 0) {
                c = Long.compare(a, o.a);
            }
            return c != 0 ? c : Long.compare(b, o.b);
        }
    }

    private final boolean withEvents;
    private List<Emitted> into;
    private long packet;
    private int phase;
    private long a;
    private long b;

    ShardOutput(boolean withEvents) {
        this.withEvents = withEvents;
    }

    /** The factory the shard's tracker uses: NONE when nobody listens, so the analysers make no events. */
    TcpEventSinkFactory eventSinks() {
        return withEvents ? this : TcpEventSinkFactory.NONE;
    }

    void collectInto(List<Emitted> list) {
        into = list;
    }

    /** What follows happens while the tracker takes the packet at capture-order index {@code index}. */
    void atPacket(long index) {
        packet = index;
        phase = AT_PACKET;
        a = 0;
        b = 0;
    }

    /** What follows happens in the sweep after the packet at {@code index}. */
    void inSweepAfter(long index) {
        packet = index;
        phase = IN_SWEEP;
    }

    /** What follows happens at the end of the input. */
    void atEnd() {
        packet = Long.MAX_VALUE;
        phase = AT_END;
    }

    @Override
    public void reporting(long firstPacket, long firstSeenNanos) {
        if (phase == IN_SWEEP) {
            a = firstPacket;
            b = 0;
        } else if (phase == AT_END) {
            a = firstSeenNanos;
            b = firstPacket;
        }
    }

    @Override
    public void onFlow(FlowKey key, long instance, TcpFlowAnalyzer flow) {
        into.add(new Emitted(packet, phase, a, b, new FlowOut(key, instance), null, flow));
    }

    @Override
    public TcpEventSink forFlow(FlowKey key, long instance) {
        FlowOut flow = new FlowOut(key, instance);
        into.add(new Emitted(packet, phase, a, b, flow, null, null));
        return e -> into.add(new Emitted(packet, phase, a, b, flow, e, null));
    }
}
