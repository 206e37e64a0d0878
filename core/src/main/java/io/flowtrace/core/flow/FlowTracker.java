package io.flowtrace.core.flow;

import io.flowtrace.core.net.Endpoint;
import io.flowtrace.core.net.FlowKey;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.pcap.DecodeStatus;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.core.tcp.AnalyzerConfig;
import io.flowtrace.core.tcp.TcpEventSink;
import io.flowtrace.core.tcp.TcpEventSinkFactory;
import io.flowtrace.core.tcp.TcpFlowAnalyzer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.function.IntFunction;

/**
 * Routes decoded packets to per-connection analysers, for offline analysis of a whole capture:
 * finds the flow by its canonical key without allocating (a primitive open-addressing table),
 * and adapts {@link FlowLifecycle} to a capture: its clock is the capture's time, a sweep every
 * {@link SweepClock} interval ends the flows that expired (so memory stays bounded by the number of
 * live connections), and the end of input reports the rest as they are. The Flink job adapts the
 * same lifecycle to keyed state and timers.
 */
public final class FlowTracker {
    /** Receives every flow instance once, when it ends (closed and lingered, idle, replaced, or flushed). */
    @FunctionalInterface
    public interface FlowListener {
        void onFlow(FlowKey key, long instance, TcpFlowAnalyzer flow);
    }

    /**
     * Where in capture order the flow about to be reported started, told just before its last
     * events and its report, so the output of several trackers fed disjoint sets of flows can be
     * merged back into the order one tracker would have produced ({@code ShardedAnalysis}).
     */
    @FunctionalInterface
    public interface ReportOrder {
        /**
         * @param firstPacket the capture-order index of the instance's first packet
         * @param firstSeenNanos that packet's capture time
         */
        void reporting(long firstPacket, long firstSeenNanos);

        ReportOrder NONE = (firstPacket, firstSeenNanos) -> {};
    }

    /** Expired flows first by where they started in the capture, then by their first packet's time. */
    private static final Comparator<FlowEntry> BY_FIRST_PACKET = Comparator.comparingLong(e -> e.firstPacket);

    private static final Comparator<FlowEntry> BY_FIRST_SEEN =
            Comparator.<FlowEntry>comparingLong(e -> e.flow.firstSeenNanos()).thenComparingLong(e -> e.firstPacket);

    private final FlowLifecycle lifecycle;
    private final FlowListener listener;
    private final IntFunction<VantagePoint> vantageOfInterface;
    private final TcpEventSinkFactory eventsForFlow;
    private final PacketKeyTable table = new PacketKeyTable();
    private final CanonicalKey scratchKey = new CanonicalKey();
    private final SweepClock sweepClock = new SweepClock();
    private ReportOrder order = ReportOrder.NONE;
    private long packets;
    private long flowsStarted;

    public FlowTracker(AnalyzerConfig config, IntFunction<VantagePoint> vantageOfInterface, FlowListener listener) {
        this(config, vantageOfInterface, listener, TcpEventSinkFactory.NONE);
    }

    public FlowTracker(
            AnalyzerConfig config,
            IntFunction<VantagePoint> vantageOfInterface,
            FlowListener listener,
            TcpEventSinkFactory eventsForFlow) {
        this.lifecycle = FlowLifecycle.offline(config);
        this.listener = listener;
        this.vantageOfInterface = vantageOfInterface;
        this.eventsForFlow = eventsForFlow;
    }

    /** Tells {@code order} where each reported flow started (see {@link ReportOrder}); returns this tracker. */
    public FlowTracker reportingOrderTo(ReportOrder order) {
        this.order = order;
        return this;
    }

    /**
     * Feeds the next packet of the capture and ends the flows gone idle by its time (a sweep every
     * {@link SweepClock} interval of capture time); packets whose status is not TCP are ignored.
     */
    public void onPacket(DecodedPacket p) {
        if (p.status != DecodeStatus.TCP) {
            return;
        }
        track(p, packets++);
        if (sweepClock.due(p.timestampNanos)) {
            sweep(p.timestampNanos);
        }
    }

    /**
     * Feeds the TCP packet at capture-order index {@code index} without sweeping: for a tracker that
     * holds only some of the capture's flows, whose sweeps the caller runs at the capture's sweep
     * times ({@link #sweep}). Indexes must grow.
     */
    public void track(DecodedPacket p, long index) {
        track(p, index, scratchKey.of(p));
    }

    /** As {@link #track(DecodedPacket, long)}, with {@code p}'s key already computed (on another thread, say). */
    public void track(DecodedPacket p, long index, CanonicalKey canonical) {
        FlowEntry e = (FlowEntry) table.get(canonical);
        if (e != null && lifecycle.startsNewInstance(e, p)) {
            report(e);
            startInstance(e, p, index);
        } else if (e == null) {
            FlowKey key = FlowKey.of(
                    vantageOfInterface.apply(p.interfaceId),
                    new Endpoint(Arrays.copyOf(p.srcAddr, p.addrLength), p.srcPort),
                    new Endpoint(Arrays.copyOf(p.dstAddr, p.addrLength), p.dstPort));
            e = new FlowEntry(key, p.interfaceId);
            startInstance(e, p, index);
            table.put(e);
        }
        lifecycle.seen(e, p.timestampNanos, Long.MIN_VALUE); // the capture's clock: no packet is late
        // The lookup already ordered the endpoints: comparing that with the client's side replaces
        // the analyser's own address comparison (6 % of the analysing thread's samples in a JFR
        // profile, docs/BENCHMARKS.md).
        e.flow.onPacket(p, table.lastSourceIsLow() == e.clientIsLow, e.events);
    }

    private void startInstance(FlowEntry e, DecodedPacket p, long index) {
        flowsStarted++;
        e.firstPacket = index;
        lifecycle.start(e, p);
        Endpoint client = e.flow.client();
        boolean clientSent = client.port() == p.srcPort
                && Arrays.equals(client.address(), 0, p.addrLength, p.srcAddr, 0, p.addrLength);
        e.clientIsLow = clientSent == table.lastSourceIsLow();
        e.events = eventsForFlow.forFlow(e.key, e.instance);
    }

    /** Hands an instance to the listener, after its last events (the slow-start exit it settles on). */
    private void report(FlowEntry e) {
        order.reporting(e.firstPacket, e.flow.firstSeenNanos());
        e.flow.settle(e.events);
        listener.onFlow(e.key, e.instance, e.flow);
    }

    /**
     * Ends flows idle past their timeout at capture time {@code now}, reporting them in the order
     * they started (not the hash table's), so the order does not depend on how flows are spread
     * over trackers.
     */
    public void sweep(long now) {
        List<FlowEntry> expired = new ArrayList<>();
        table.forEachValue(v -> {
            FlowEntry e = (FlowEntry) v;
            if (lifecycle.expired(e, now)) {
                expired.add(e);
            }
        });
        expired.sort(BY_FIRST_PACKET);
        for (FlowEntry e : expired) {
            table.remove(e);
            lifecycle.expire(e);
            report(e);
        }
    }

    /**
     * End of input: every flow still held is reported with its current end state (open, fin, rst),
     * by first packet's time (then by where it started in the capture).
     */
    public void flush() {
        List<FlowEntry> all = new ArrayList<>();
        table.forEachValue(v -> all.add((FlowEntry) v));
        all.sort(BY_FIRST_SEEN);
        for (FlowEntry e : all) {
            report(e);
        }
        table.clear();
    }

    public int liveFlows() {
        return table.size();
    }

    public long flowsStarted() {
        return flowsStarted;
    }

    static final class FlowEntry extends FlowLifecycle.State implements PacketKeyTable.Keyed {
        final FlowKey key;
        /** Where the current instance's events go. */
        TcpEventSink events;

        /** Capture-order index of the current instance's first packet. */
        long firstPacket;
        /** Whether the current instance's client is the key's low endpoint. */
        boolean clientIsLow;

        // primitive copy of the key for the table
        final long a0;
        final long a1;
        final long b0;
        final long b1;
        final int ports;
        final int meta;

        FlowEntry(FlowKey key, int interfaceId) {
            this.key = key;
            long[] lo = PacketKeyTable.words(key.low().address());
            long[] hi = PacketKeyTable.words(key.high().address());
            a0 = lo[0];
            a1 = lo[1];
            b0 = hi[0];
            b1 = hi[1];
            ports = (key.low().port() << 16) | key.high().port();
            meta = PacketKeyTable.meta(key.low().address().length, interfaceId);
        }

        @Override
        public long a0() {
            return a0;
        }

        @Override
        public long a1() {
            return a1;
        }

        @Override
        public long b0() {
            return b0;
        }

        @Override
        public long b1() {
            return b1;
        }

        @Override
        public int ports() {
            return ports;
        }

        @Override
        public int meta() {
            return meta;
        }
    }
}
