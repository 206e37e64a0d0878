package io.flowtrace.jobs.openvpn;

import io.flowtrace.avro.DeadLetter;
import io.flowtrace.avro.DeadLetterStage;
import io.flowtrace.avro.OpenVpnBatch;
import io.flowtrace.avro.OpenVpnSessionRecord;
import io.flowtrace.avro.SingleObjectCodec;
import io.flowtrace.avro.Vantage;
import io.flowtrace.avro.mapping.OpenVpnBatches;
import io.flowtrace.avro.mapping.OpenVpnSessions;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.core.net.Endpoint;
import io.flowtrace.core.openvpn.OpenVpnFlow;
import io.flowtrace.core.openvpn.OpenVpnFlowCodec;
import io.flowtrace.core.openvpn.OpenVpnHeader;
import io.flowtrace.core.openvpn.OpenVpnHeaderDecoder;
import io.flowtrace.core.openvpn.OpenVpnSession;
import io.flowtrace.core.openvpn.OpenVpnSessionTracker;
import io.flowtrace.core.openvpn.OpenVpnWire;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.jobs.flow.FlowBatch;
import io.flowtrace.jobs.flow.PacketRejections;
import java.io.IOException;
import java.util.Arrays;
import java.util.Locale;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Per-flow OpenVPN analysis on keyed state (a UDP flow, or a TCP connection whose packets the
 * agent framed: transport tcp, with its TCP retransmissions as entries of their own): core's {@link OpenVpnFlow} does the analysis (the
 * same class the offline {@link OpenVpnSessionTracker} keeps per flow), this class moves it in and
 * out of state ({@link OpenVpnFlowCodec} bytes) and keeps time. Sessions are emitted once, as
 * {@code analyze} reports them: when the flow has been silent for
 * {@link OpenVpnSessionTracker#IDLE_NANOS} of event time (then all state of the key is cleared),
 * when more than {@link OpenVpnFlow#MAX_SESSIONS} push the oldest out, and at the end of a bounded
 * input. Memory per key is bounded by core's limits (sessions per flow, packet-ids per direction).
 *
 * <p>Input: one {@link FlowBatch} per OpenVpnBatch record (the source validated its header). A
 * packet whose fields break the contract, or whose OpenVPN header does not decode (truncated,
 * malformed), is dropped alone; the batch's dead letter counts them and names the first.
 */
public final class OpenVpnSessionFunction extends KeyedProcessFunction<String, FlowBatch, OpenVpnSessionRecord> {
    private static final long serialVersionUID = 1L;
    private static final long NANOS_PER_MS = 1_000_000L;
    static final long IDLE_MS = OpenVpnSessionTracker.IDLE_NANOS / NANOS_PER_MS;

    /** Batches that do not decode, and the packets of a batch that could not be analysed. */
    public static final OutputTag<DeadLetter> DEAD_LETTERS = new OutputTag<>("openvpn-dead-letters") {};

    private transient ValueState<byte[]> flowState;
    private transient ValueState<Vantage> vantageState;
    private transient ValueState<Long> timerState;
    private transient SingleObjectCodec<OpenVpnBatch> batches;
    private transient OpenVpnBatch batch;
    private transient DecodedPacket packet;
    private transient OpenVpnHeader header;
    private transient byte[] headerBytes;
    private transient PacketRejections rejections;
    private transient Counter sessionsReported;
    private transient Counter rejectedPackets;
    private transient Counter dataWithoutSession;

    @Override
    public void open(OpenContext context) {
        flowState = getRuntimeContext()
                .getState(new ValueStateDescriptor<>(
                        "openvpn-flow", PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
        vantageState = getRuntimeContext()
                .getState(new ValueStateDescriptor<>("openvpn-vantage", new AvroTypeInfo<>(Vantage.class)));
        timerState = getRuntimeContext().getState(new ValueStateDescriptor<>("openvpn-timer", Types.LONG));
        batches = OpenVpnBatches.codec();
        packet = new DecodedPacket();
        header = new OpenVpnHeader();
        headerBytes = new byte[OpenVpnBatches.MAX_HEADER_BYTES];
        rejections = new PacketRejections();
        sessionsReported = getRuntimeContext().getMetricGroup().counter("openvpnSessions");
        rejectedPackets = getRuntimeContext().getMetricGroup().counter("openvpnRejectedPackets");
        dataWithoutSession = getRuntimeContext().getMetricGroup().counter("openvpnDataWithoutSession");
    }

    @Override
    public void processElement(FlowBatch record, Context ctx, Collector<OpenVpnSessionRecord> out) throws Exception {
        if (!decode(record, ctx)) {
            return;
        }
        byte[] stored = flowState.value();
        OpenVpnFlow flow = analyse(stored == null ? null : OpenVpnFlowCodec.fromBytes(stored), out);
        if (rejections.count() > 0) {
            rejectedPackets.inc(rejections.count());
            ctx.output(
                    DEAD_LETTERS,
                    rejections.deadLetter(record, batch.getPackets().size(), "OpenVPN packets"));
        }
        if (flow != null) {
            flowState.update(OpenVpnFlowCodec.toBytes(flow));
            if (timerState.value() == null) {
                long wake = deadlineMs(flow);
                ctx.timerService().registerEventTimeTimer(wake);
                timerState.update(wake);
            }
        }
    }

    /**
     * Feeds the decoded batch's packets to the key's flow, which its first valid packet opens when
     * there is none yet; the packets that cannot be analysed go to {@link #rejections}. Returns the
     * flow, null when there was none and no packet was valid.
     */
    private OpenVpnFlow analyse(OpenVpnFlow flow, Collector<OpenVpnSessionRecord> out) throws IOException {
        OpenVpnWire wire = OpenVpnBatches.wire(batch);
        OpenVpnHeaderDecoder decoder = new OpenVpnHeaderDecoder(wire);
        long nowNanos = System.currentTimeMillis() * NANOS_PER_MS;
        rejections.reset();
        for (int i = 0; i < batch.getPackets().size(); i++) {
            String invalid = readPacket(i, decoder, nowNanos);
            if (invalid != null) {
                rejections.add(i, invalid);
                continue;
            }
            String src = endpoint(packet.srcAddr, packet.addrLength, packet.srcPort);
            if (batch.getPackets().get(i).getTcpRetransmit()) {
                if (flow != null) { // as analyze: none before the connection's first OpenVPN packet
                    flow.onTcpRetransmit(src.equals(flow.client()));
                }
                continue;
            }
            if (flow == null) {
                flow = OpenVpnFlow.open(
                        wire,
                        PacketEvents.vantage(batch.getVantage()),
                        src,
                        packet.srcPort,
                        endpoint(packet.dstAddr, packet.addrLength, packet.dstPort),
                        packet.dstPort,
                        header);
                if (OpenVpnBatches.TCP.equals(batch.getTransport())) {
                    flow.carriedOverTcp();
                }
                // a copy: the codec reuses the batch (and its vantage) for the next record
                vantageState.update(Vantage.newBuilder(batch.getVantage()).build());
            }
            Vantage v = vantageState.value();
            if (!flow.onPacket(header, src.equals(flow.client()), packet.timestampNanos, s -> emit(s, v, out))) {
                dataWithoutSession.inc();
            }
        }
        return flow;
    }

    /** Reads packet {@code i} of the batch into {@code packet} and {@code header}; why it cannot be analysed, or null. */
    private String readPacket(int i, OpenVpnHeaderDecoder decoder, long nowNanos) {
        String invalid = OpenVpnBatches.invalidPacketReason(batch, i, nowNanos);
        if (invalid != null) {
            return invalid;
        }
        int captured = OpenVpnBatches.fromAvro(batch, i, packet, headerBytes);
        if (batch.getPackets().get(i).getTcpRetransmit()) {
            return null; // no OpenVPN packet: a TCP segment that repeated framed bytes
        }
        OpenVpnHeader.Kind kind = decoder.decode(headerBytes, 0, captured, packet.payloadLength, header);
        if (kind == OpenVpnHeader.Kind.TRUNCATED || kind == OpenVpnHeader.Kind.MALFORMED) {
            return kind.name().toLowerCase(Locale.ROOT) + " OpenVPN header: " + header.reason;
        }
        return null;
    }

    /** Reads the record's batch into {@code batch} (reused); false, with a dead letter, when it cannot. */
    private boolean decode(FlowBatch record, Context ctx) {
        try {
            batch = batches.decode(record.value, batch); // lengths checked first, as in the source
            return true;
        } catch (IOException | RuntimeException e) {
            // impossible for a record the source decoded, unless the job's jars disagree
            ctx.output(
                    DEAD_LETTERS,
                    record.deadLetter(DeadLetterStage.DECODE, String.valueOf(e.getMessage()), e, record.packets));
            return false;
        }
    }

    /**
     * The flow's deadline: a later packet moved it without re-arming the timer, so the timer
     * re-checks and re-arms; idle reports every session, with the deadline (last packet + 300 s) as
     * its event time, and clears the key.
     */
    @Override
    public void onTimer(long timestampMs, OnTimerContext ctx, Collector<OpenVpnSessionRecord> out) throws Exception {
        byte[] stored = flowState.value();
        if (stored == null) {
            timerState.clear();
            return;
        }
        OpenVpnFlow flow = OpenVpnFlowCodec.fromBytes(stored);
        long deadline = deadlineMs(flow);
        // Also at the end of a bounded input (watermark MAX): the re-armed timer fires in the same
        // advance, so a session is always reported at its flow's own deadline, whatever the batching.
        if (deadline > timestampMs) {
            ctx.timerService().registerEventTimeTimer(deadline);
            timerState.update(deadline);
            return;
        }
        Vantage v = vantageState.value();
        for (OpenVpnSession s : flow.sessions()) {
            emit(s, v, out);
        }
        flowState.clear();
        vantageState.clear();
        timerState.clear();
    }

    /**
     * The flow's idle deadline ({@link OpenVpnFlow#idleDeadlineNanos()}, core's one rule) in the
     * milliseconds of event-time timers, rounded down: a timer at it finds the deadline reached.
     */
    private static long deadlineMs(OpenVpnFlow flow) {
        return Math.floorDiv(flow.idleDeadlineNanos(), NANOS_PER_MS);
    }

    private void emit(OpenVpnSession s, Vantage vantage, Collector<OpenVpnSessionRecord> out) {
        sessionsReported.inc();
        out.collect(OpenVpnSessions.toAvro(s, vantage));
    }

    private static String endpoint(byte[] addr, int length, int port) {
        return new Endpoint(Arrays.copyOf(addr, length), port).toString();
    }
}
