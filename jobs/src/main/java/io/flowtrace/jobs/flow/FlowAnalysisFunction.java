package io.flowtrace.jobs.flow;

import io.flowtrace.avro.FlowIdentity;
import io.flowtrace.avro.PacketEvent;
import io.flowtrace.avro.Vantage;
import io.flowtrace.avro.mapping.FlowRecords;
import io.flowtrace.avro.mapping.ReportJson;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.avro.mapping.TcpEvents;
import io.flowtrace.core.flow.FlowInstances;
import io.flowtrace.core.flow.FlowKey;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.core.tcp.AnalyzerConfig;
import io.flowtrace.core.tcp.TcpEvent;
import io.flowtrace.core.tcp.TcpEventSink;
import io.flowtrace.core.tcp.TcpFlowAnalyzer;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.TimerService;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Per-flow TCP analysis on keyed state: core's {@link TcpFlowAnalyzer} does the analysis, this
 * class only moves it in and out of state and keeps time. It mirrors core's offline
 * {@code FlowTracker} rule for rule (new instance on port reuse via {@link FlowInstances}, idle
 * and half-open expiry, the linger of closed flows, an unexpired flow reported as it is at the
 * end of input), so streaming and {@code flowtrace analyze} report the same flows.
 *
 * <p>Time: one event-time timer per key at a time, at the earlier of the expiry deadline and the
 * next periodic update. A deadline that moves later (every packet moves it) does not re-register
 * the timer; the timer re-checks {@link FlowInstances#expired} when it fires and re-arms. On expiry
 * all state of the key is cleared.
 *
 * <p>Main output: {@link FlowSummary} (periodic updates, an update when the flow closes, the final
 * version). Side output {@link #TCP_EVENTS}: the analyser's events with their ordinal in the flow.
 */
public final class FlowAnalysisFunction extends KeyedProcessFunction<String, PacketEvent, FlowSummary> {
    private static final long serialVersionUID = 1L;
    private static final long NANOS_PER_MS = 1_000_000L;

    public static final OutputTag<io.flowtrace.avro.TcpEvent> TCP_EVENTS = new OutputTag<>("tcp-events") { };

    private final AnalyzerSettings settings;
    private final long updateIntervalMs;

    private transient AnalyzerConfig config;
    private transient ValueState<FlowState> state;
    private transient DecodedPacket packet;
    private transient EventForwarder events;
    private transient Counter latePackets;
    private transient Counter flowsStarted;
    private transient Counter flowsEnded;

    public FlowAnalysisFunction(AnalyzerConfig config, long updateIntervalMs) {
        if (updateIntervalMs <= 0) {
            throw new IllegalArgumentException("update interval must be positive, got " + updateIntervalMs + " ms");
        }
        this.settings = AnalyzerSettings.of(config);
        this.updateIntervalMs = updateIntervalMs;
    }

    @Override
    public void open(OpenContext context) {
        config = settings.toConfig();
        state = getRuntimeContext().getState(new ValueStateDescriptor<>("flow", new FlowStateSerializer(config)));
        packet = new DecodedPacket();
        events = new EventForwarder(getRuntimeContext().getMetricGroup().counter("unmappedTcpEvents"));
        latePackets = getRuntimeContext().getMetricGroup().counter("latePackets");
        flowsStarted = getRuntimeContext().getMetricGroup().counter("flowsStarted");
        flowsEnded = getRuntimeContext().getMetricGroup().counter("flowsEnded");
    }

    @Override
    public void processElement(PacketEvent event, Context ctx, Collector<FlowSummary> out) throws Exception {
        PacketEvents.fromAvro(event, packet);
        String key = ctx.getCurrentKey();
        FlowState s = state.value();
        if (s != null && FlowInstances.startsNewInstance(s.flow, packet, s.lastSeenNanos, config)) {
            // Port reuse: the old instance is reported as it is (FlowTracker does not expire it).
            emit(key, s, micros(s.lastSeenNanos), true, out);
            flowsEnded.inc();
            cancelTimer(s, ctx.timerService());
            s = startInstance(FlowInstances.instanceId(packet.timestampNanos));
        } else if (s == null) {
            s = startInstance(FlowInstances.instanceId(packet.timestampNanos));
        }
        Long timestamp = ctx.timestamp();
        if (timestamp != null && timestamp < ctx.timerService().currentWatermark()) {
            s.latePackets++;
            latePackets.inc();
        }
        s.lastSeenNanos = Math.max(s.lastSeenNanos, packet.timestampNanos);
        events.bind(ctx, key, s);
        s.flow.setEventSink(events);
        s.flow.onPacket(packet);
        s.flow.setEventSink(TcpEventSink.NONE);
        if (s.flow.closed() && !s.closeReported) {
            // Dashboards see the FIN/RST now; the final version follows after the linger.
            s.closeReported = true;
            emit(key, s, micros(s.lastSeenNanos), false, out);
        }
        schedule(s, ctx.timerService());
        state.update(s);
    }

    @Override
    public void onTimer(long timestampMs, OnTimerContext ctx, Collector<FlowSummary> out) throws Exception {
        FlowState s = state.value();
        if (s == null || s.timerMs != timestampMs) {
            return; // a timer of an instance that was replaced
        }
        s.timerMs = FlowState.NO_TIMER;
        String key = ctx.getCurrentKey();
        if (ctx.timerService().currentWatermark() == Long.MAX_VALUE) {
            // End of a bounded input: like analyze's flush, report the flow as it is, not as idle, at
            // its current wake-up time. A timer armed before a later packet moved the deadline (a
            // deadline that moves later does not re-arm the timer) is superseded: re-arm at the
            // current one, which fires at once, so the final record's time does not depend on how
            // far the watermark had got before the input ended (docs/reliability.md, Findings).
            long wake = wakeMs(s);
            if (timestampMs < wake) {
                ctx.timerService().registerEventTimeTimer(wake);
                s.timerMs = wake;
                state.update(s);
                return;
            }
            endFlow(key, s, timestampMs, out);
            return;
        }
        if (FlowInstances.expired(s.flow, s.lastSeenNanos, timestampMs * NANOS_PER_MS, config)) {
            if (!s.flow.closed()) {
                s.flow.expire();
            }
            endFlow(key, s, timestampMs, out);
            return;
        }
        if (timestampMs >= s.nextUpdateMs) {
            emit(key, s, timestampMs * 1000, false, out);
            s.nextUpdateMs = timestampMs + updateIntervalMs;
        }
        schedule(s, ctx.timerService());
        state.update(s);
    }

    private FlowState startInstance(long instance) {
        FlowInstances.Roles roles = FlowInstances.roles(packet);
        FlowState s = new FlowState(
                new TcpFlowAnalyzer(roles.client(), roles.server(), roles.guessed(), config, TcpEventSink.NONE), instance);
        s.lastSeenNanos = packet.timestampNanos;
        s.nextUpdateMs = Math.floorDiv(packet.timestampNanos, NANOS_PER_MS) + updateIntervalMs;
        flowsStarted.inc();
        return s;
    }

    private void endFlow(String key, FlowState s, long timestampMs, Collector<FlowSummary> out) {
        emit(key, s, timestampMs * 1000, true, out);
        flowsEnded.inc();
        state.clear();
    }

    /** Arms the key's timer at the earlier of expiry and the next update, unless an earlier one is armed. */
    private void schedule(FlowState s, TimerService timers) {
        long wake = wakeMs(s);
        if (s.timerMs != FlowState.NO_TIMER && s.timerMs <= wake) {
            return;
        }
        cancelTimer(s, timers);
        timers.registerEventTimeTimer(wake);
        s.timerMs = wake;
    }

    /** The earlier of the flow's expiry (rounded up to a millisecond) and its next periodic update. */
    private long wakeMs(FlowState s) {
        return Math.min(-Math.floorDiv(-expiryDeadlineNanos(s), NANOS_PER_MS), s.nextUpdateMs);
    }

    private static void cancelTimer(FlowState s, TimerService timers) {
        if (s.timerMs != FlowState.NO_TIMER) {
            timers.deleteEventTimeTimer(s.timerMs);
            s.timerMs = FlowState.NO_TIMER;
        }
    }

    /** When {@link FlowInstances#expired} first holds for this flow; re-checked when the timer fires. */
    private long expiryDeadlineNanos(FlowState s) {
        return FlowInstances.deadlineNanos(s.flow, s.lastSeenNanos, config);
    }

    private static void emit(String key, FlowState s, long recordTimeUs, boolean last, Collector<FlowSummary> out) {
        String vantage = vantageOfKey(key);
        FlowKey flowKey = FlowKey.of(vantage, s.flow.client(), s.flow.server());
        out.collect(new FlowSummary(
                FlowRecords.of(FlowRecords.vantageOf(vantage), flowKey, s.instance, s.flow, recordTimeUs),
                ReportJson.of(flowKey, s.instance, s.flow),
                s.latePackets,
                last));
    }

    /** The vantage part of a {@link FlowKey#canonical()} key "vantage|low|high" (endpoints contain no '|'). */
    static String vantageOfKey(String key) {
        int high = key.lastIndexOf('|');
        int low = key.lastIndexOf('|', high - 1);
        if (low < 0) {
            throw new IllegalArgumentException("not a canonical flow key: " + key);
        }
        return key.substring(0, low);
    }

    private static long micros(long nanos) {
        return Math.floorDiv(nanos, 1000);
    }

    /** Sends the analyser's events to the side output, numbered within their flow instance. */
    private static final class EventForwarder implements TcpEventSink {
        private final Counter unmapped;
        private Context ctx;
        private String key;
        private FlowState flow;
        private FlowIdentity identity;

        EventForwarder(Counter unmapped) {
            this.unmapped = unmapped;
        }

        void bind(Context ctx, String key, FlowState flow) {
            this.ctx = ctx;
            this.key = key;
            this.flow = flow;
            this.identity = null;
        }

        @Override
        public void accept(TcpEvent event) {
            if (identity == null) {
                TcpFlowAnalyzer f = flow.flow;
                Vantage vantage = FlowRecords.vantageOf(vantageOfKey(key));
                identity = new FlowIdentity(vantage, f.client().toString(), f.server().toString(), flow.instance,
                        f.clientGuessed());
            }
            io.flowtrace.avro.TcpEvent avro = TcpEvents.toAvro(identity, flow.events, event);
            if (avro == null) {
                unmapped.inc();
                return;
            }
            flow.events++;
            ctx.output(TCP_EVENTS, avro);
        }
    }
}
