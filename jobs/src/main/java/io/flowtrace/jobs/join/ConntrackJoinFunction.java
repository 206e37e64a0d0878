package io.flowtrace.jobs.join;

import io.flowtrace.jobs.flow.FlowSummary;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.util.Collector;

/**
 * The conntrack ↔ flow join on keyed state ({@link ConntrackJoin} has the rules): input 1 is every
 * version of every flow record, keyed by {@link ConntrackJoin#key(FlowView)}; input 2 the conntrack
 * events, one copy per tuple ({@link ConntrackJoin#keys}). State per key: the latest view of each
 * flow instance and the merged entry of each conntrack, at most {@code maxPerKey} of each (the oldest
 * goes first, counted in {@code joinEvicted}). Whenever either side changes, every matching pair is
 * emitted again (the sink upserts). One event-time timer per key at the earliest expiry
 * ({@link ConntrackJoin#expiryNs}) removes what is done; the key's state is empty afterwards.
 */
public final class ConntrackJoinFunction extends KeyedCoProcessFunction<String, FlowSummary, CtFacts, FlowConntrack> {
    private static final long serialVersionUID = 1L;
    private static final long NANOS_PER_MS = 1_000_000L;

    private final long waitNs;
    private final long idleNs;
    private final long slackNs;
    private final int maxPerKey;

    private transient MapState<String, FlowView> flows;
    private transient MapState<String, CtFacts> entries;
    private transient ValueState<Long> timer;
    private transient Counter joined;
    private transient Counter evicted;

    /**
     * @param waitMs how long (event time) a final flow waits for its conntrack DESTROY and a
     *     destroyed entry for its flows
     * @param idleMs how long a live flow or entry without news is kept
     * @param slackMs tolerance when comparing conntrack lifetime with the capture times
     * @param maxPerKey most flow instances and most conntrack entries kept per key
     */
    public ConntrackJoinFunction(long waitMs, long idleMs, long slackMs, int maxPerKey) {
        if (waitMs <= 0 || idleMs <= 0 || slackMs < 0 || maxPerKey <= 0) {
            throw new IllegalArgumentException(
                    "conntrack join: wait and idle must be positive, slack >= 0, max per key > 0");
        }
        this.waitNs = waitMs * NANOS_PER_MS;
        this.idleNs = idleMs * NANOS_PER_MS;
        this.slackNs = slackMs * NANOS_PER_MS;
        this.maxPerKey = maxPerKey;
    }

    @Override
    public void open(OpenContext context) {
        flows = getRuntimeContext()
                .getMapState(new MapStateDescriptor<>("join-flows", Types.STRING, Types.POJO(FlowView.class)));
        entries = getRuntimeContext()
                .getMapState(new MapStateDescriptor<>("join-conntrack", Types.STRING, Types.POJO(CtFacts.class)));
        timer = getRuntimeContext().getState(new ValueStateDescriptor<>("join-timer", Types.LONG));
        joined = getRuntimeContext().getMetricGroup().counter("conntrackJoinedRows");
        evicted = getRuntimeContext().getMetricGroup().counter("conntrackJoinEvicted");
    }

    @Override
    public void processElement1(FlowSummary summary, Context ctx, Collector<FlowConntrack> out) throws Exception {
        FlowView f = FlowView.of(summary);
        flows.put(f.instanceId(), f);
        for (CtFacts ct : entries.values()) {
            emit(f, ct, out);
        }
        bound();
        reschedule(ctx);
    }

    @Override
    public void processElement2(CtFacts event, Context ctx, Collector<FlowConntrack> out) throws Exception {
        String id = event.entryId();
        CtFacts ct = ConntrackJoin.merge(entries.get(id), event);
        entries.put(id, ct);
        for (FlowView f : flows.values()) {
            emit(f, ct, out);
        }
        bound();
        reschedule(ctx);
    }

    private void emit(FlowView f, CtFacts ct, Collector<FlowConntrack> out) {
        if (ConntrackJoin.overlaps(ct, f, slackNs)) {
            FlowConntrack row = ConntrackJoin.join(f, ct);
            if (row != null) {
                joined.inc();
                out.collect(row);
            }
        }
    }

    @Override
    public void onTimer(long timestampMs, OnTimerContext ctx, Collector<FlowConntrack> out) throws Exception {
        Long current = timer.value();
        if (current == null || current != timestampMs) {
            return;
        }
        timer.clear();
        long now = ctx.timerService().currentWatermark();
        long nowNs = now == Long.MAX_VALUE ? Long.MAX_VALUE : now * NANOS_PER_MS;
        List<String> done = new ArrayList<>();
        for (Map.Entry<String, FlowView> e : flows.entries()) {
            if (ConntrackJoin.expiryNs(e.getValue(), waitNs, idleNs) <= nowNs) {
                done.add(e.getKey());
            }
        }
        for (String k : done) {
            flows.remove(k);
        }
        done.clear();
        for (Map.Entry<String, CtFacts> e : entries.entries()) {
            if (ConntrackJoin.expiryNs(e.getValue(), waitNs, idleNs) <= nowNs) {
                done.add(e.getKey());
            }
        }
        for (String k : done) {
            entries.remove(k);
        }
        reschedule(ctx);
    }

    /** At most maxPerKey of each side: the least recently active goes. */
    private void bound() throws Exception {
        List<FlowView> fs = new ArrayList<>();
        flows.values().forEach(fs::add);
        if (fs.size() > maxPerKey) {
            fs.sort(Comparator.comparingLong((FlowView f) -> f.lastSeenUs));
            for (int i = 0; i < fs.size() - maxPerKey; i++) {
                flows.remove(fs.get(i).instanceId());
                evicted.inc();
            }
        }
        List<CtFacts> cs = new ArrayList<>();
        entries.values().forEach(cs::add);
        if (cs.size() > maxPerKey) {
            cs.sort(Comparator.comparingLong((CtFacts c) -> c.eventTimeNs));
            for (int i = 0; i < cs.size() - maxPerKey; i++) {
                entries.remove(cs.get(i).entryId());
                evicted.inc();
            }
        }
    }

    /** One timer per key, at the earliest expiry of what the key holds; none when it holds nothing. */
    private void reschedule(Context ctx) throws Exception {
        long earliest = Long.MAX_VALUE;
        for (FlowView f : flows.values()) {
            earliest = Math.min(earliest, ConntrackJoin.expiryNs(f, waitNs, idleNs));
        }
        for (CtFacts c : entries.values()) {
            earliest = Math.min(earliest, ConntrackJoin.expiryNs(c, waitNs, idleNs));
        }
        Long current = timer.value();
        if (earliest == Long.MAX_VALUE) {
            if (current != null) {
                ctx.timerService().deleteEventTimeTimer(current);
                timer.clear();
            }
            if (flows.isEmpty() && entries.isEmpty()) {
                flows.clear();
                entries.clear();
            }
            return;
        }
        long ms = Math.floorDiv(earliest, NANOS_PER_MS) + 1;
        if (current == null || current != ms) {
            if (current != null) {
                ctx.timerService().deleteEventTimeTimer(current);
            }
            ctx.timerService().registerEventTimeTimer(ms);
            timer.update(ms);
        }
    }
}
