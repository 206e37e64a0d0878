package io.flowtrace.jobs.flow;

import io.flowtrace.avro.AvroLengthGuard;
import io.flowtrace.avro.DeadLetter;
import io.flowtrace.avro.DeadLetterStage;
import io.flowtrace.avro.FlowIdentity;
import io.flowtrace.avro.PacketBatch;
import io.flowtrace.avro.PacketEvent;
import io.flowtrace.avro.mapping.FlowRecords;
import io.flowtrace.avro.mapping.PacketBatches;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.avro.mapping.ReportJson;
import io.flowtrace.avro.mapping.TcpEvents;
import io.flowtrace.core.flow.FlowInstances;
import io.flowtrace.core.net.FlowKey;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.core.tcp.AnalyzerConfig;
import io.flowtrace.core.tcp.TcpEventSink;
import io.flowtrace.core.tcp.TcpFlowAnalyzer;
import io.flowtrace.core.tcp.TcpFlowEvent;
import java.nio.ByteBuffer;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
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
 * <p>Input: one {@link FlowBatch} per Kafka record, a PacketBatch of many packets or a PacketEvent,
 * decoded here once; the flow's state is read and written once per record. Every packet keeps its
 * own capture time: it is late when that time is behind the watermark, an output it causes carries
 * that time as its event time, and the timer is the one packet-by-packet processing would leave
 * armed (the earliest wake-up the packets asked for). A batch that does not decode goes to
 * {@link #DEAD_LETTERS} whole; a packet that breaks the contract is dropped alone and the batch's
 * dead letter counts and names it.
 *
 * <p>{@code record_time_us} never goes backwards within a flow instance: every version carries at
 * least the capture time of the latest packet in it and the time of the previous periodic update.
 *
 * <p>Main output: {@link FlowSummary} (periodic updates, an update when the flow closes, the final
 * version). Side output {@link #TCP_EVENTS}: the analyser's events with their ordinal in the flow.
 */
public final class FlowAnalysisFunction extends KeyedProcessFunction<String, FlowBatch, FlowSummary> {
    private static final long serialVersionUID = 1L;
    private static final long NANOS_PER_MS = 1_000_000L;

    public static final OutputTag<io.flowtrace.avro.TcpEvent> TCP_EVENTS = new OutputTag<>("tcp-events") { };
    /** Batches that do not decode, and the packets of a batch that break the contract. */
    public static final OutputTag<DeadLetter> DEAD_LETTERS = new OutputTag<>("flow-dead-letters") { };
    private static final AvroLengthGuard BATCH_LENGTHS = AvroLengthGuard.of(PacketBatch.getClassSchema());
    private static final int SINGLE_OBJECT_HEADER = 10;

    private final AnalyzerSettings settings;
    private final long updateIntervalMs;

    private transient AnalyzerConfig config;
    private transient ValueState<FlowState> state;
    private transient DecodedPacket packet;
    private transient EventForwarder events;
    private transient Counter latePackets;
    private transient Counter flowsStarted;
    private transient Counter flowsEnded;
    private transient Counter rejectedPackets;
    private transient Counter rejectedBatches;
    private transient SpecificDatumReader<PacketBatch> batchReader;
    private transient SpecificDatumReader<PacketEvent> eventReader;
    private transient BinaryDecoder binary;
    private transient PacketBatch batch;
    private transient PacketEvent event;

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
        rejectedPackets = getRuntimeContext().getMetricGroup().counter("rejectedPackets");
        rejectedBatches = getRuntimeContext().getMetricGroup().counter("rejectedBatches");
        batchReader = new SpecificDatumReader<>(PacketBatch.class);
        eventReader = new SpecificDatumReader<>(PacketEvent.class);
    }

    @Override
    public void processElement(FlowBatch record, Context ctx, Collector<FlowSummary> out) throws Exception {
        int packets = decode(record, ctx);
        if (packets == 0) {
            return;
        }
        long watermark = ctx.timerService().currentWatermark();
        long nowNanos = System.currentTimeMillis() * NANOS_PER_MS;
        FlowState s = state.value();
        if (s != null && s.vantage == null) {
            s.vantage = recordVantage(); // state of an older job (FlowStateSerializer layout 1)
        }
        long wake = Long.MAX_VALUE;
        int analysed = 0;
        int rejected = 0;
        String firstRejection = null;
        for (int i = 0; i < packets; i++) {
            String invalid = packet(i, nowNanos);
            if (invalid != null) {
                if (rejected++ == 0) {
                    firstRejection = "packet " + i + ": " + invalid;
                }
                continue;
            }
            long packetMs = Math.floorDiv(packet.timestampNanos, NANOS_PER_MS);
            if (s != null && FlowInstances.startsNewInstance(s.flow, packet, s.lastSeenNanos, config)) {
                // Port reuse: the old instance is reported as it is (FlowTracker does not expire it).
                emit(s, micros(s.lastSeenNanos), true, packetMs, out);
                flowsEnded.inc();
                cancelTimer(s, ctx.timerService());
                s = startInstance(FlowInstances.instanceId(packet.timestampNanos), s.vantage);
                wake = Long.MAX_VALUE;
            } else if (s == null) {
                s = startInstance(FlowInstances.instanceId(packet.timestampNanos), recordVantage());
            }
            if (packetMs < watermark) {
                s.latePackets++;
                latePackets.inc();
            }
            s.lastSeenNanos = Math.max(s.lastSeenNanos, packet.timestampNanos);
            events.bind(ctx, s);
            s.flow.onPacket(packet, events);
            if (s.flow.closed() && !s.closeReported) {
                // Dashboards see the FIN/RST now; the final version follows after the linger.
                s.closeReported = true;
                emit(s, micros(s.lastSeenNanos), false, packetMs, out);
            }
            wake = Math.min(wake, wakeMs(s));
            analysed++;
        }
        if (rejected > 0) {
            rejectedPackets.inc(rejected);
            ctx.output(DEAD_LETTERS, deadLetter(record, DeadLetterStage.VALIDATE, rejected + " of " + packets
                    + " packets rejected, the others analysed; " + firstRejection, null, rejected));
        }
        if (analysed > 0) {
            schedule(s, ctx.timerService(), wake);
            state.update(s);
        }
    }

    /**
     * Decodes the record's packets into {@link #batch} or {@link #event} and returns how many there
     * are, or 0 after dead-lettering a batch that does not decode (the source has validated its
     * header; a PacketEvent was validated whole there).
     */
    private int decode(FlowBatch record, Context ctx) {
        byte[] value = record.value;
        int length = value.length - SINGLE_OBJECT_HEADER;
        if (PacketBatches.fingerprintOf(value) != PacketBatches.FINGERPRINT) {
            try {
                binary = DecoderFactory.get().binaryDecoder(value, SINGLE_OBJECT_HEADER, length, binary);
                event = eventReader.read(event, binary);
            } catch (java.io.IOException | RuntimeException e) {
                // impossible for a record the source decoded, unless the job's jars disagree
                return reject(record, ctx, e);
            }
            batch = null;
            return 1;
        }
        try {
            BATCH_LENGTHS.checkBinary(value, SINGLE_OBJECT_HEADER, length);
            binary = DecoderFactory.get().binaryDecoder(value, SINGLE_OBJECT_HEADER, length, binary);
            batch = batchReader.read(batch, binary);
        } catch (java.io.IOException | RuntimeException e) {
            // untrusted bytes behind a valid header: the record's fault, kept whole with its class
            return reject(record, ctx, e);
        }
        int n = batch.getPackets().size();
        if (n < 1 || n > PacketBatches.MAX_PACKETS) {
            rejectedBatches.inc();
            ctx.output(DEAD_LETTERS, deadLetter(record, DeadLetterStage.VALIDATE, "a batch of " + n
                    + " packets (1 to " + PacketBatches.MAX_PACKETS + " accepted)", null, record.packets));
            return 0;
        }
        return n;
    }

    private int reject(FlowBatch record, Context ctx, Exception e) {
        rejectedBatches.inc();
        ctx.output(DEAD_LETTERS, deadLetter(record, DeadLetterStage.DECODE, String.valueOf(e.getMessage()), e,
                record.packets));
        return 0;
    }

    /** The vantage point of the decoded record (the source checked it: docs/schemas.md). */
    private VantagePoint recordVantage() {
        return PacketEvents.vantagePoint(batch != null ? batch.getVantage() : event.getVantage());
    }

    /** Fills {@link #packet} with packet {@code i} of the decoded record, or says why it cannot be analysed. */
    private String packet(int i, long nowNanos) {
        if (batch == null) {
            PacketEvents.fromAvro(event, packet);
            return null;
        }
        String invalid = PacketBatches.invalidPacketReason(batch, i, nowNanos);
        if (invalid == null) {
            PacketBatches.fromAvro(batch, i, packet);
        }
        return invalid;
    }

    private static DeadLetter deadLetter(FlowBatch record, DeadLetterStage stage, String reason, Exception e,
            int packets) {
        return DeadLetter.newBuilder()
                .setTopic(record.topic)
                .setPartition(record.partition)
                .setOffset(record.offset)
                .setTimestampMs(record.kafkaTimestampMs)
                .setReason(reason)
                .setKey(record.recordKey == null ? null : ByteBuffer.wrap(record.recordKey))
                .setRaw(ByteBuffer.wrap(record.value))
                .setStage(stage)
                .setErrorClass(e == null ? null : e.getClass().getName())
                .setSchemaFingerprint(PacketBatches.fingerprintOf(record.value))
                .setJobTimeMs(System.currentTimeMillis())
                .setPackets(packets)
                .build();
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
            endFlow(s, timestampMs, out);
            return;
        }
        if (FlowInstances.expired(s.flow, s.lastSeenNanos, timestampMs * NANOS_PER_MS, config)) {
            if (!s.flow.closed()) {
                s.flow.expire();
            }
            endFlow(s, timestampMs, out);
            return;
        }
        if (timestampMs >= s.nextUpdateMs) {
            emit(s, timestampMs * 1000, false, timestampMs, out);
            s.nextUpdateMs = timestampMs + updateIntervalMs;
        }
        schedule(s, ctx.timerService(), wakeMs(s));
        state.update(s);
    }

    private FlowState startInstance(long instance, VantagePoint vantage) {
        FlowInstances.Roles roles = FlowInstances.roles(packet);
        FlowState s = new FlowState(
                new TcpFlowAnalyzer(roles.client(), roles.server(), roles.guessed(), config), vantage, instance);
        s.lastSeenNanos = packet.timestampNanos;
        s.nextUpdateMs = Math.floorDiv(packet.timestampNanos, NANOS_PER_MS) + updateIntervalMs;
        flowsStarted.inc();
        return s;
    }

    private void endFlow(FlowState s, long timestampMs, Collector<FlowSummary> out) {
        emit(s, timestampMs * 1000, true, timestampMs, out);
        flowsEnded.inc();
        state.clear();
    }

    /**
     * Arms the key's timer at {@code wake} (the earliest of the wake-ups {@link #wakeMs} asked for
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

    /**
     * Emits a version of the flow at event time {@code eventTimeMs} (the packet or timer that caused
     * it). Its record time is at least the latest packet's capture time and the previous periodic
     * update's time, so versions of one instance never go back in time: a timer that fires after a
     * later packet closed the flow reports the state after that packet, at that packet's time.
     */
    private void emit(FlowState s, long recordTimeUs, boolean last, long eventTimeMs,
            Collector<FlowSummary> out) {
        long lastPeriodicUs = (s.nextUpdateMs - updateIntervalMs) * 1000;
        long timeUs = Math.max(recordTimeUs, Math.max(micros(s.lastSeenNanos), lastPeriodicUs));
        if (out instanceof TimestampedCollector<FlowSummary> timestamped) {
            // The keyed operator stamps outputs with the input record's time; a batch's packets have their own.
            timestamped.setAbsoluteTimestamp(eventTimeMs);
        }
        FlowKey flowKey = FlowKey.of(s.vantage, s.flow.client(), s.flow.server());
        out.collect(new FlowSummary(
                FlowRecords.of(flowKey, s.instance, s.flow, timeUs),
                ReportJson.of(flowKey, s.instance, s.flow),
                s.latePackets,
                last));
    }

    private static long micros(long nanos) {
        return Math.floorDiv(nanos, 1000);
    }

    /** Sends the analyser's events to the side output, numbered within their flow instance. */
    private static final class EventForwarder implements TcpEventSink {
        private final Counter unmapped;
        private Context ctx;
        private FlowState flow;
        private FlowIdentity identity;

        EventForwarder(Counter unmapped) {
            this.unmapped = unmapped;
        }

        void bind(Context ctx, FlowState flow) {
            this.ctx = ctx;
            this.flow = flow;
            this.identity = null;
        }

        @Override
        public void accept(TcpFlowEvent event) {
            if (identity == null) {
                TcpFlowAnalyzer f = flow.flow;
                identity = new FlowIdentity(PacketEvents.toAvro(flow.vantage), f.client().toString(), f.server().toString(), flow.instance,
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
