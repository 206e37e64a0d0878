package io.flowtrace.jobs.flow;

import io.flowtrace.avro.DeadLetter;
import io.flowtrace.avro.DeadLetterStage;
import io.flowtrace.avro.TcpEvent;
import io.flowtrace.avro.mapping.FlowRecordEncoder;
import io.flowtrace.avro.mapping.FlowRecords;
import io.flowtrace.core.flow.FlowLifecycle;
import io.flowtrace.core.net.FlowKey;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.core.tcp.AnalyzerConfig;
import io.flowtrace.core.tcp.TcpFlowAnalyzer;
import io.flowtrace.report.FlowReport;
import io.flowtrace.report.FlowRowPolicy;
import io.flowtrace.report.ReportJson;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.TimerService;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.operators.TimestampedCollector;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Per-flow TCP analysis on keyed state: core's {@link TcpFlowAnalyzer} does the analysis and core's
 * {@link FlowLifecycle} decides the flow's life (new instance on port reuse, idle and half-open
 * expiry, the linger of closed flows, the close update, periodic updates, an unexpired flow
 * reported as it is at the end of input), the same rules core's offline {@code FlowTracker}
 * adapts, so streaming and {@code flowtrace analyze} report the same flows. This class only moves
 * the state in and out of Flink, keeps time and emits.
 *
 * <p>Time: one event-time timer per key at a time, at the lifecycle's next wake-up (the earlier of
 * the expiry deadline and the next periodic update). A deadline that moves later (every packet
 * moves it) does not re-register the timer; the lifecycle re-checks when the timer fires, and the
 * function re-arms. On the end of a flow all state of the key is cleared. Expiry is measured from
 * the flow's clock ({@code FlowLifecycle.State.clockNanos}): its latest capture time, or the
 * watermark at a late packet's arrival, so a flow that lags the job's event time is not cut
 * between two of its own packets.
 *
 * <p>Input: one {@link FlowBatch} per Kafka record, a PacketBatch of many packets or a PacketEvent,
 * decoded once ({@link FlowBatchDecoder}); the flow's state is read and written once per record. Every packet keeps its
 * own capture time: it is late when that time is behind the watermark, an output it causes carries
 * that time as its event time, and the timer is the one packet-by-packet processing would leave
 * armed (the earliest wake-up the packets asked for). A batch that does not decode goes to
 * {@link #DEAD_LETTERS} whole; a packet that breaks the contract is dropped alone and the batch's
 * dead letter counts and names it.
 *
 * <p>{@code record_time_us} never goes backwards within a flow instance: every version carries at
 * least the capture time of the latest packet in it and the time of the previous periodic update.
 *
 * <p>Main output: {@link FlowSummary} (periodic updates while the flow is open, an update when it
 * closes, the final version; a flow that closes before its first periodic update emits the final
 * version only, and its flow_summary row alone at the close, without the report JSON under
 * {@code --flow-rows all}: {@code FlowLifecycle.Close.ROW}). Side output {@link #TCP_EVENTS}: the analyser's events with their ordinal in the flow,
 * handed by core with each packet to a {@link TcpEventForwarder}. Side output {@link #FLOW_ROWS}: the
 * PostgreSQL flow_summary row of a version, with its report JSON, built from the same walk as the
 * version's record and only when a flow_summary sink is wired; only these rows cross to the JDBC
 * writer's task (docs/job.md, "Flow rows in PostgreSQL").
 */
public final class FlowAnalysisFunction extends KeyedProcessFunction<String, FlowBatch, FlowSummary> {
    private static final long serialVersionUID = 1L;
    private static final long NANOS_PER_MS = 1_000_000L;

    public static final OutputTag<TcpEvent> TCP_EVENTS = new OutputTag<>("tcp-events") {};
    /** Batches that do not decode, and the packets of a batch that break the contract. */
    public static final OutputTag<DeadLetter> DEAD_LETTERS = new OutputTag<>("flow-dead-letters") {};
    /** The flow_summary rows (FlowSummaryColumns), with the report JSON. */
    public static final OutputTag<FlowRow> FLOW_ROWS = new OutputTag<>("flow-rows") {};

    private final AnalyzerSettings settings;
    private final long updateIntervalMs;
    /** Which versions get a row on {@link #FLOW_ROWS}; null when no flow_summary sink reads them. */
    private final FlowRowPolicy rows;
    /** {@code --max-flows-per-vantage}: live flows of one vantage on one subtask ({@link VantageFlowLimit}). */
    private final int maxFlowsPerVantage;

    private transient AnalyzerConfig config;
    private transient FlowLifecycle lifecycle;
    private transient ValueState<FlowState> state;
    private transient DecodedPacket packet;
    private transient FlowBatchDecoder records;
    private transient TcpEventForwarder events;
    /** The Kafka value and the typed values of the version being emitted, reused. */
    private transient FlowRecordEncoder encoder;

    private transient PacketRejections rejections;
    private transient Counter latePackets;
    private transient Counter flowsStarted;
    private transient Counter flowsEnded;
    private transient Counter rejectedPackets;
    private transient Counter rejectedBatches;
    private transient VantageFlowLimit vantageFlows;
    private transient Counter flowsOverVantageLimit;

    /** With a flow_summary row for every version ({@link #FLOW_ROWS}). */
    public FlowAnalysisFunction(AnalyzerConfig config, long updateIntervalMs) {
        this(config, updateIntervalMs, FlowRowPolicy.ALL);
    }

    /**
     * @param rows which versions get their flow_summary row and {@code analyze --json} text on
     *     {@link #FLOW_ROWS} (the output policy, decided before either is built), null for none: only
     *     the PostgreSQL flow_summary sink reads them (docs/job.md, "Flow rows in PostgreSQL"), and
     *     writing the text for every version was 18 % of the task thread on short connections
     *     (docs/BENCHMARKS.md)
     */
    public FlowAnalysisFunction(AnalyzerConfig config, long updateIntervalMs, FlowRowPolicy rows) {
        this(config, updateIntervalMs, rows, Integer.MAX_VALUE);
    }

    /**
     * @param maxFlowsPerVantage the most live flows of one vantage point on one subtask; the record of
     *     a new flow over it is a VALIDATE dead letter, counted ({@code flowsOverVantageLimit})
     */
    public FlowAnalysisFunction(
            AnalyzerConfig config, long updateIntervalMs, FlowRowPolicy rows, int maxFlowsPerVantage) {
        this.updateIntervalMs = FlowLifecycle.checkedUpdateInterval(updateIntervalMs); // when the job is built
        this.settings = AnalyzerSettings.of(config);
        this.rows = rows;
        this.maxFlowsPerVantage = maxFlowsPerVantage;
        new VantageFlowLimit(maxFlowsPerVantage); // refuses a bound below 1 when the job is built
    }

    @Override
    public void open(OpenContext context) {
        config = settings.toConfig();
        lifecycle = FlowLifecycle.streaming(config, updateIntervalMs);
        state = getRuntimeContext().getState(new ValueStateDescriptor<>("flow", new FlowStateSerializer(config)));
        packet = new DecodedPacket();
        records = new FlowBatchDecoder();
        encoder = new FlowRecordEncoder();
        rejections = new PacketRejections();
        events = new TcpEventForwarder(getRuntimeContext().getMetricGroup().counter("unmappedTcpEvents"));
        latePackets = getRuntimeContext().getMetricGroup().counter("latePackets");
        flowsStarted = getRuntimeContext().getMetricGroup().counter("flowsStarted");
        flowsEnded = getRuntimeContext().getMetricGroup().counter("flowsEnded");
        rejectedPackets = getRuntimeContext().getMetricGroup().counter("rejectedPackets");
        rejectedBatches = getRuntimeContext().getMetricGroup().counter("rejectedBatches");
        vantageFlows = new VantageFlowLimit(maxFlowsPerVantage);
        flowsOverVantageLimit = getRuntimeContext().getMetricGroup().counter("flowsOverVantageLimit");
    }

    @Override
    public void processElement(FlowBatch record, Context ctx, Collector<FlowSummary> out) throws Exception {
        int packets = records.decode(record);
        if (packets == 0) {
            rejectedBatches.inc();
            ctx.output(DEAD_LETTERS, records.rejection());
            return;
        }
        long watermark = ctx.timerService().currentWatermark();
        long nowNanos = System.currentTimeMillis() * NANOS_PER_MS;
        FlowState s = state.value();
        if (s != null && s.vantage == null) {
            s.vantage = records.vantage(); // state of an older job (FlowStateSerializer layout 1)
        }
        long wake = Long.MAX_VALUE;
        int analysed = 0;
        rejections.reset();
        for (int i = 0; i < packets; i++) {
            String invalid = records.packet(i, nowNanos, packet);
            if (invalid != null) {
                rejections.add(i, invalid);
                continue;
            }
            long packetMs = Math.floorDiv(packet.timestampNanos, NANOS_PER_MS);
            if (s != null && lifecycle.startsNewInstance(s, packet)) {
                // Port reuse: the old instance is reported as it is, not expired.
                emit(s, micros(s.lastSeenNanos), true, packetMs, ctx, out);
                flowsEnded.inc();
                cancelTimer(s, ctx.timerService());
                s = startInstance(s.vantage);
                wake = Long.MAX_VALUE;
            } else if (s == null) {
                if (!vantageFlows.admit(records.vantage())) {
                    flowsOverVantageLimit.inc();
                    ctx.output(DEAD_LETTERS, overVantageLimit(record, packets));
                    return;
                }
                s = startInstance(records.vantage());
            }
            if (lifecycle.seen(s, packet.timestampNanos, watermark)) {
                s.latePackets++;
                latePackets.inc();
            }
            s.flow.onPacket(packet, events.bind(ctx, s));
            switch (lifecycle.closeUpdate(s, packetMs)) {
                case UPDATE -> emit(s, micros(s.lastSeenNanos), false, packetMs, ctx, out);
                case ROW -> emitCloseRow(s, micros(s.lastSeenNanos), ctx);
                case NONE -> {}
            }
            wake = Math.min(wake, lifecycle.wakeMs(s));
            analysed++;
        }
        if (rejections.count() > 0) {
            rejectedPackets.inc(rejections.count());
            ctx.output(DEAD_LETTERS, rejections.deadLetter(record, packets, "packets"));
        }
        if (analysed > 0) {
            schedule(s, ctx.timerService(), wake);
            state.update(s);
        }
    }

    @Override
    public void onTimer(long timestampMs, OnTimerContext ctx, Collector<FlowSummary> out) throws Exception {
        FlowState s = state.value();
        if (s == null || s.timerMs != timestampMs) {
            return; // a timer of an instance that was replaced
        }
        s.timerMs = FlowState.NO_TIMER;
        if (s.vantage == null) {
            // state of an older job (FlowStateSerializer layout 1): the key is the one place it is in
            s.vantage = FlowKey.parse(ctx.getCurrentKey()).vantage();
        }
        // the end of a bounded input: flows end as they are, like analyze's flush (docs/reliability.md, Findings)
        boolean endOfInput = ctx.timerService().currentWatermark() == Long.MAX_VALUE;
        switch (lifecycle.wake(s, timestampMs, endOfInput)) {
            case END -> {
                endFlow(s, timestampMs, ctx, out);
                return;
            }
            case UPDATE -> {
                emit(s, timestampMs * 1000, false, timestampMs, ctx, out);
                lifecycle.updated(s, timestampMs);
            }
            case SLEEP -> {}
        }
        schedule(s, ctx.timerService(), lifecycle.wakeMs(s));
        state.update(s);
    }

    /** The state of the instance the current packet starts. */
    private FlowState startInstance(VantagePoint vantage) {
        FlowState s = new FlowState();
        s.vantage = vantage;
        lifecycle.start(s, packet);
        flowsStarted.inc();
        return s;
    }

    private void endFlow(FlowState s, long timestampMs, Context ctx, Collector<FlowSummary> out) {
        emit(s, timestampMs * 1000, true, timestampMs, ctx, out);
        flowsEnded.inc();
        vantageFlows.ended(s.vantage);
        state.clear();
    }

    /** The dead letter of a record that would start a flow of a vantage at {@code --max-flows-per-vantage}. */
    private DeadLetter overVantageLimit(FlowBatch record, int packets) {
        return record.deadLetter(
                DeadLetterStage.VALIDATE,
                "new flow refused: vantage " + records.vantage() + " has " + vantageFlows.max()
                        + " live flows on this subtask (--max-flows-per-vantage)",
                null,
                packets);
    }

    /**
     * Arms the key's timer at {@code wake} (the earliest of the wake-ups the lifecycle asked for
     * since the last call), unless an earlier one is armed: the timer packet-by-packet scheduling
     * would leave armed.
     */
    private void schedule(FlowState s, TimerService timers, long wake) {
        if (s.timerMs != FlowState.NO_TIMER && s.timerMs <= wake) {
            return;
        }
        cancelTimer(s, timers);
        timers.registerEventTimeTimer(wake);
        s.timerMs = wake;
    }

    private static void cancelTimer(FlowState s, TimerService timers) {
        if (s.timerMs != FlowState.NO_TIMER) {
            timers.deleteEventTimeTimer(s.timerMs);
            s.timerMs = FlowState.NO_TIMER;
        }
    }

    /**
     * Emits a version of the flow at event time {@code eventTimeMs} (the packet or timer that caused
     * it). Its record time is at least the latest packet's capture time and the previous periodic
     * update's time, so versions of one instance never go back in time: a timer that fires after a
     * later packet closed the flow reports the state after that packet, at that packet's time.
     */
    private void emit(
            FlowState s, long recordTimeUs, boolean last, long eventTimeMs, Context ctx, Collector<FlowSummary> out) {
        long timeUs = versionTimeUs(s, recordTimeUs);
        if (out instanceof TimestampedCollector<FlowSummary> timestamped) {
            // The keyed operator stamps outputs with the input record's time; a batch's packets have their own.
            timestamped.setAbsoluteTimestamp(eventTimeMs);
        }
        FlowKey flowKey = FlowKey.of(s.vantage, s.flow.client(), s.flow.server());
        // the Kafka value, the row and the JSON text from one walk of the analyser; the row and the
        // text only for a version a flow_summary sink writes
        FlowRowWriter row = rows != null && rows.writes(flowKey, s.instance, s.flow)
                ? new FlowRowWriter(FlowRowLayout.INSTANCE)
                : null;
        String json = FlowRecords.encode(encoder, flowKey, s.instance, s.flow, timeUs, row != null, row);
        out.collect(FlowSummary.of(encoder, s.vantage, timeUs, s.latePackets, last));
        if (row != null) {
            ctx.output(FLOW_ROWS, row.row(json, s.latePackets, timeUs, last));
        }
    }

    /**
     * The flow_summary row of a flow's close when the close update is folded into its final version
     * ({@code FlowLifecycle.Close.ROW}): not final, at the closing packet's time. Under {@code
     * --flow-rows all} without the report JSON (NULL until the final row, which that policy always
     * writes, fills it: docs/job.md "Flow rows in PostgreSQL"), so it costs one walk of the analyser
     * into the row and no text. Under {@code notable} and {@code none} with the report: there the
     * final row may not follow (a flow notable at its close and not at its end), and the close row
     * then stays the flow's last, as any row keeps its last written version. Nothing on the main
     * output or the events: the Kafka flows topic and the windows keep the one final record.
     */
    private void emitCloseRow(FlowState s, long recordTimeUs, Context ctx) {
        if (rows == null) {
            return;
        }
        FlowKey flowKey = FlowKey.of(s.vantage, s.flow.client(), s.flow.server());
        if (!rows.writes(flowKey, s.instance, s.flow)) {
            return;
        }
        FlowRowWriter row = new FlowRowWriter(FlowRowLayout.INSTANCE);
        String json = null;
        if (rows.rows() == FlowRowPolicy.Rows.ALL) {
            FlowReport.visit(flowKey, s.instance, s.flow, row);
        } else {
            json = ReportJson.of(flowKey, s.instance, s.flow, row);
        }
        ctx.output(FLOW_ROWS, row.row(json, s.latePackets, versionTimeUs(s, recordTimeUs), false));
    }

    /**
     * A version's record time: at least {@code recordTimeUs}, the latest packet's capture time and the
     * previous periodic update's time, so versions of one instance never go back in time.
     */
    private long versionTimeUs(FlowState s, long recordTimeUs) {
        long lastPeriodicUs = (s.nextUpdateMs - updateIntervalMs) * 1000;
        return Math.max(recordTimeUs, Math.max(micros(s.lastSeenNanos), lastPeriodicUs));
    }

    private static long micros(long nanos) {
        return Math.floorDiv(nanos, 1000);
    }
}
