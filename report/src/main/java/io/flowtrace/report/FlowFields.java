package io.flowtrace.report;

import static io.flowtrace.report.FlowField.Columns.ONE;
import static io.flowtrace.report.FlowField.SqlType.BIGINT;
import static io.flowtrace.report.FlowField.SqlType.BOOLEAN;
import static io.flowtrace.report.FlowField.SqlType.DOUBLE_PRECISION;
import static io.flowtrace.report.FlowField.SqlType.INTEGER;
import static io.flowtrace.report.FlowField.SqlType.TEXT;
import static io.flowtrace.report.FlowField.SqlType.TIMESTAMPTZ;
import static io.flowtrace.report.FlowSubject.micros;

import io.flowtrace.core.tcp.SetupStats;
import io.flowtrace.report.FlowField.BoolValue;
import io.flowtrace.report.FlowField.DecimalValue;
import io.flowtrace.report.FlowField.LongValue;
import io.flowtrace.report.FlowField.LongsValue;
import io.flowtrace.report.FlowField.Scope;
import io.flowtrace.report.FlowField.Side;
import io.flowtrace.report.FlowField.TextValue;
import io.flowtrace.report.FlowField.Value;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * The metric catalogue: every field of the flow record, once, in report order. The JSON and text
 * reports walk it ({@link FlowReport}), the Avro mapping fails on a field the contract lacks unless
 * it is marked report-only here, the job's {@code flow_summary} columns and upserts are built from
 * the columns declared here, and the windows take their per-flow inputs and derived values from
 * here. A new metric is its detector plus one entry (plus an Avro field and a migration when it is
 * a column); docs/metrics.md defines every field in full and a test keeps the two in step. The
 * flow fields are declared here, the per-direction ones in {@link DirectionFields} and
 * {@link SlowStartFields}.
 */
public final class FlowFields {
    private FlowFields() {}

    // ---- once per flow, in report order ----
    public static final FlowField CLIENT = flow(
                    "flow.client",
                    "",
                    "ip:port of the client: sender of the first SYN, else the receiver of the first SYN-ACK, else the higher port",
                    text(s -> s.flow().client().toString()))
            .withColumn("client", TEXT, ONE);
    public static final FlowField SERVER = flow(
                    "flow.server",
                    "",
                    "ip:port of the server",
                    text(s -> s.flow().server().toString()))
            .withColumn("server", TEXT, ONE);
    public static final FlowField VANTAGE = flow(
                    "flow.vantage",
                    "",
                    "agent/interface of the capture point (a Vantage record in the contract)",
                    text(s -> s.key().vantage().toString()))
            .withColumn("vantage", TEXT, ONE);
    public static final FlowField INSTANCE = flow(
                    "flow.instance",
                    "µs",
                    "capture time of the instance's first packet, µs since the epoch",
                    integer(FlowSubject::instance))
            .withColumn("instance", BIGINT, ONE);
    public static final FlowField CLIENT_GUESSED = flow(
                    "flow.client_guessed",
                    "",
                    "no SYN or SYN-ACK seen: the client is the port-based guess",
                    bool(s -> s.flow().clientGuessed()))
            .withColumn("client_guessed", BOOLEAN, ONE);
    public static final FlowField FIRST_SEEN = flow(
                    "first_seen_us",
                    "µs",
                    "capture time of the instance's first packet, µs since the epoch",
                    integer(s -> micros(s.flow().firstSeenNanos())))
            .withColumn("first_seen", TIMESTAMPTZ, ONE);
    public static final FlowField LAST_SEEN = flow(
                    "last_seen_us",
                    "µs",
                    "capture time of the instance's latest packet, µs since the epoch",
                    integer(s -> micros(s.flow().lastSeenNanos())))
            .withColumn("last_seen", TIMESTAMPTZ, ONE);
    public static final FlowField END = flow(
                    "end",
                    "",
                    "fin, rst, idle (expired) or open (alive at the end of input or at an update)",
                    text(s -> s.flow().end().jsonName()))
            .withColumn("end_state", TEXT, ONE);
    public static final FlowField SYN_RETRANSMITS = setup(
                    "syn_retransmits", "SYNs", "client SYNs after the first", setupCount(st -> st.synRetransmits))
            .withColumn("syn_retransmits", INTEGER, ONE)
            .summed("synRetransmits");
    public static final FlowField SYNACK_RETRANSMITS = setup(
                    "synack_retransmits",
                    "SYN-ACKs",
                    "server SYN-ACKs after the first",
                    setupCount(st -> st.synAckRetransmits))
            .summed("synackRetransmits");
    public static final FlowField SYN_RETRANSMIT_GAPS = setup(
            "syn_retransmit_gaps_us",
            "µs",
            "time from each SYN to the next",
            setupGaps(st -> micros(st.synRetransmitGapsNanos, st.synRetransmitGapCount)));
    public static final FlowField SYNACK_RETRANSMIT_GAPS = setup(
                    "synack_retransmit_gaps_us",
                    "µs",
                    "time from each SYN-ACK to the next",
                    setupGaps(st -> micros(st.synAckRetransmitGapsNanos, st.synAckRetransmitGapCount)))
            .orNull();
    public static final FlowField SETUP_US = setup(
                    "setup_us",
                    "µs",
                    "first SYN to the client's ACK of the server's ISN + 1",
                    setupDecimal(st -> st.setupNanos < 0 ? Double.NaN : st.setupNanos / 1000.0))
            .orNull()
            .withColumn("setup_us", DOUBLE_PRECISION, ONE)
            .sampled("setupUs");
    public static final FlowField HANDSHAKE_RTT_US = setup(
                    "handshake_rtt_us",
                    "µs",
                    "path RTT from the three-way handshake at this vantage point",
                    setupDecimal(st -> st.handshakeRttNanos < 0 ? Double.NaN : st.handshakeRttNanos / 1000.0))
            .orNull()
            .withColumn("handshake_rtt_us", DOUBLE_PRECISION, ONE);

    // ---- once per direction: declared in DirectionFields, the fields other code names here ----
    public static final FlowField PACKETS = DirectionFields.PACKETS;
    public static final FlowField DATA_PACKETS = DirectionFields.DATA_PACKETS;
    public static final FlowField DATA_BYTES = DirectionFields.DATA_BYTES;
    public static final FlowField UNIQUE_BYTES = DirectionFields.UNIQUE_BYTES;
    public static final FlowField RETRANSMITTED_PACKETS = DirectionFields.RETRANSMITTED_PACKETS;
    /** retransmits.rto, .fast, .spurious, .tlp, .other, in {@link io.flowtrace.core.tcp.RetransmissionClass} order. */
    public static final List<FlowField> RETRANSMITS = DirectionFields.RETRANSMITS;

    public static final FlowField RTT_AVG_US = DirectionFields.RTT_AVG_US;
    public static final FlowField THROUGHPUT_BPS = DirectionFields.THROUGHPUT_BPS;
    public static final FlowField EXIT_CWND_SEGMENTS = SlowStartFields.EXIT_CWND_SEGMENTS;
    public static final FlowField PREMATURE = SlowStartFields.PREMATURE;

    public static final List<FlowField> FLOW = List.of(
            CLIENT,
            SERVER,
            VANTAGE,
            INSTANCE,
            CLIENT_GUESSED,
            FIRST_SEEN,
            LAST_SEEN,
            END,
            SYN_RETRANSMITS,
            SYNACK_RETRANSMITS,
            SYN_RETRANSMIT_GAPS,
            SYNACK_RETRANSMIT_GAPS,
            SETUP_US,
            HANDSHAKE_RTT_US);

    /** The per-direction fields in report order (DirectionFields declares them). */
    public static final List<FlowField> DIRECTION = DirectionFields.ALL;

    /** Every field by its JSON path ({@code setup.setup_us}, {@code c2s.dsacks}, {@code s2c.dsacks}). */
    private static final Map<String, FlowField> BY_JSON_PATH = byJsonPath();

    private static final String TS_STDEV =
            "the contract's RttStats is shared with rtt_us; the report has no stdev of timestamp RTTs (null)";

    /** Fields of the Avro contract that are not report fields: by JSON path, with the reason. */
    public static final Map<String, String> CONTRACT_ONLY = Map.of(
            "record_time_us",
            "event time of this version of the record, set by the job (orders the updates of a flow)",
            "c2s.ts_rtt_us.stdev",
            TS_STDEV,
            "s2c.ts_rtt_us.stdev",
            TS_STDEV);

    /** The field at a JSON path, or null. */
    public static FlowField byJsonPath(String path) {
        return BY_JSON_PATH.get(path);
    }

    public static List<FlowField> all() {
        List<FlowField> all = new ArrayList<>(FLOW);
        all.addAll(DIRECTION);
        return all;
    }

    // ---- values derived from fields, defined here once ----

    /** The per-flow RTT the windows sample (µs): the client's data RTT average when it has samples, else the server's; null without samples. */
    public static Double flowRttUs(FlowValues v) {
        Number c2s = v.number(RTT_AVG_US, Side.C2S);
        Number rtt = c2s != null ? c2s : v.number(RTT_AVG_US, Side.S2C);
        return rtt == null ? null : rtt.doubleValue();
    }

    /** A direction counter of the whole flow: c2s + s2c (absent counts as 0). */
    public static long bothDirections(FlowValues v, FlowField field) {
        return v.integer(field, Side.C2S) + v.integer(field, Side.S2C);
    }

    private static Map<String, FlowField> byJsonPath() {
        Map<String, FlowField> map = new LinkedHashMap<>();
        for (FlowField f : all()) {
            for (String path : f.jsonPaths()) {
                if (map.put(path, f) != null) {
                    throw new IllegalStateException("two catalogue fields at " + path);
                }
            }
        }
        return map;
    }

    private static FlowField flow(String path, String unit, String definition, Value value) {
        return new FlowField(path, Scope.FLOW, unit, false, definition, null, null, null, FlowField.Window.NONE, value);
    }

    private static FlowField setup(String name, String unit, String definition, Value value) {
        return flow("setup." + name, unit, definition, value);
    }

    private static Value text(Function<FlowSubject, String> of) {
        return new TextValue(of);
    }

    private static Value integer(ToLongFunction<FlowSubject> of) {
        return new LongValue(of);
    }

    private static Value setupCount(SetupValue of) {
        return new LongValue(s -> of.of(s.flow().setup()));
    }

    private static Value setupDecimal(ToDoubleFunction<SetupStats> of) {
        return new DecimalValue(s -> of.applyAsDouble(s.flow().setup()));
    }

    private static Value bool(Predicate<FlowSubject> of) {
        return new BoolValue(of);
    }

    private static Value setupGaps(SetupGaps of) {
        return new LongsValue(s -> of.of(s.flow().setup()));
    }

    private interface SetupValue {
        long of(SetupStats setup);
    }

    private interface SetupGaps {
        long[] of(SetupStats setup);
    }
}
