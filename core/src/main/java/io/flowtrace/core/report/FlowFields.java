package io.flowtrace.core.report;

import static io.flowtrace.core.report.FlowField.Columns.ONE;
import static io.flowtrace.core.report.FlowField.Columns.PER_DIRECTION;
import static io.flowtrace.core.report.FlowField.Columns.SUM_OF_DIRECTIONS;
import static io.flowtrace.core.report.FlowField.SqlType.BIGINT;
import static io.flowtrace.core.report.FlowField.SqlType.BOOLEAN;
import static io.flowtrace.core.report.FlowField.SqlType.DOUBLE_PRECISION;
import static io.flowtrace.core.report.FlowField.SqlType.INTEGER;
import static io.flowtrace.core.report.FlowField.SqlType.TEXT;
import static io.flowtrace.core.report.FlowField.SqlType.TIMESTAMPTZ;
import static io.flowtrace.core.report.FlowSubject.micros;

import io.flowtrace.core.report.FlowField.BoolValue;
import io.flowtrace.core.report.FlowField.DecimalValue;
import io.flowtrace.core.report.FlowField.LongValue;
import io.flowtrace.core.report.FlowField.LongsValue;
import io.flowtrace.core.report.FlowField.Scope;
import io.flowtrace.core.report.FlowField.Side;
import io.flowtrace.core.report.FlowField.TextValue;
import io.flowtrace.core.report.FlowField.Value;
import io.flowtrace.core.tcp.RetransmissionClass;
import io.flowtrace.core.tcp.RunningStats;
import io.flowtrace.core.tcp.SetupStats;
import io.flowtrace.core.tcp.TcpDirectionStats;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * The metric catalogue: every field of the flow record, once, in report order. The JSON and text
 * reports walk it ({@link FlowReport}), the Avro mapping fails on a field the contract lacks unless
 * it is marked report-only here, the job's {@code flow_summary} columns and upserts are built from
 * the columns declared here, and the windows take their per-flow inputs and derived values from
 * here. A new metric is its detector plus one entry (plus an Avro field and a migration when it is
 * a column); docs/metrics.md defines every field in full and a test keeps the two in step.
 */
public final class FlowFields {
    private FlowFields() {}

    private static final String[] SEGMENT_SIZE_RULES = {
        "data segments of 1-99 bytes",
        "data segments of 100-535 bytes",
        "data segments of 536-1199 bytes",
        "data segments of 1200 bytes up to the MSS",
        "data segments above the MSS (super-segments)"
    };

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

    // ---- once per direction (c2s: data the client sent, s2c: data the server sent), in report order ----
    public static final FlowField PACKETS = side(
                    "packets", "packets", "TCP packets this side sent", count(d -> d.packets))
            .withColumn("packets", BIGINT, PER_DIRECTION)
            .summed("packets");
    public static final FlowField DATA_PACKETS = side(
                    "data_packets", "packets", "packets with payload", count(d -> d.dataPackets))
            .summed("dataPackets");
    public static final FlowField DATA_BYTES = side(
                    "data_bytes", "bytes", "payload bytes, retransmissions included", count(d -> d.dataBytes))
            .withColumn("data_bytes", BIGINT, PER_DIRECTION)
            .summed("dataBytes");
    public static final FlowField UNIQUE_BYTES = side(
                    "unique_bytes", "bytes", "sequence space covered at least once", count(d -> d.uniqueBytes))
            .withColumn("unique_bytes", BIGINT, PER_DIRECTION)
            .summed("uniqueBytes");
    public static final FlowField RETRANSMITTED_PACKETS = side(
                    "retransmitted_packets",
                    "segments",
                    "segments occupying sequence space already sent (data or FIN) = the sum of retransmits.*",
                    count(d -> d.retransmittedPackets))
            .withColumn("retransmitted_packets", BIGINT, PER_DIRECTION)
            .summed("retransmittedPackets");
    public static final FlowField RETRANSMITTED_BYTES = side(
            "retransmitted_bytes",
            "bytes",
            "payload bytes of the retransmitted segments",
            count(d -> d.retransmittedBytes));
    /** retransmits.rto, .fast, .spurious, .tlp, .other, in {@link RetransmissionClass} order. */
    public static final List<FlowField> RETRANSMITS = retransmits();

    public static final FlowField RTT_AVG_US = rtt("rtt_us", "avg", RunningStats::mean, "mean")
            .withColumn("rtt_avg_us", DOUBLE_PRECISION, PER_DIRECTION)
            .sampled("rttUs");
    public static final FlowField THROUGHPUT_BPS = side(
                    "throughput_bps",
                    "bit/s",
                    "unique bytes x 8 / (last packet - this direction's first data packet)",
                    new DecimalValue(FlowFields::throughput))
            .withColumn("throughput_bps", DOUBLE_PRECISION, PER_DIRECTION);
    public static final FlowField EXIT_CWND_SEGMENTS = slowStart(
                    "exit_cwnd_segments",
                    "segments",
                    "exit_cwnd_bytes in sender MSS",
                    integer(s -> exited(s) && s.senderMss() > 0
                            ? Math.round((double) s.slowStart().exitCwndBytes / s.senderMss())
                            : -1))
            .orNull()
            .sampled("exitCwndSegments");
    public static final FlowField PREMATURE = slowStart(
                    "premature",
                    "",
                    "exit cwnd below half the later max flight or half the BDP",
                    bool(s -> exited(s) && s.slowStart().premature()))
            .orNull()
            .summed("prematureExits");

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

    public static final List<FlowField> DIRECTION = direction();

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

    private static List<FlowField> direction() {
        List<FlowField> d = new ArrayList<>(
                List.of(PACKETS, DATA_PACKETS, DATA_BYTES, UNIQUE_BYTES, RETRANSMITTED_PACKETS, RETRANSMITTED_BYTES));
        d.addAll(RETRANSMITS);
        d.add(side(
                "reordered_packets",
                "segments",
                "holes filled by the late original, not a retransmission",
                count(x -> x.reorderedPackets)));
        d.add(side(
                "network_duplicates",
                "segments",
                "the same segment again with the same IPv4 id",
                count(x -> x.networkDuplicates)));
        d.add(side("window_probes", "segments", "probes into a closed window", count(x -> x.windowProbes)));
        d.add(side(
                        "keep_alives",
                        "segments",
                        "keep-alive probes (tshark's rule, or Linux's probe while the window is open)",
                        count(x -> x.keepAlives))
                .orNull());
        d.add(side(
                "lost_segments",
                "segments",
                "new data starting beyond the highest byte seen: missed before the capture point",
                count(x -> x.lostSegments)));
        d.add(side(
                        "acked_unseen",
                        "ACKs",
                        "ACKs from the peer for data this capture never saw",
                        count(x -> x.ackedUnseen))
                .orNull());
        d.add(side("dup_acks", "ACKs", "duplicate ACKs this side sent (tshark's rule)", count(x -> x.dupAcks)));
        d.add(side(
                "zero_windows",
                "packets",
                "packets this side sent advertising a zero window",
                count(x -> x.zeroWindows)));
        d.add(side(
                        "dsacks",
                        "ACKs",
                        "ACKs this side sent carrying a D-SACK (RFC 2883): data received twice",
                        count(x -> x.dsacks))
                .orNull()
                .withColumn("dsacks", BIGINT, PER_DIRECTION));
        d.addAll(rttFields("rtt_us", true));
        d.addAll(rttFields("ts_rtt_us", false));
        d.add(side(
                "max_in_flight_bytes",
                "bytes",
                "largest highest-sent - cumulative ACK - SACKed bytes",
                count(x -> x.maxInFlightBytes)));
        d.add(side("mss", "bytes", "MSS option this side announced in its SYN; -1 (null) if unseen", count(x -> x.mss))
                .orNull());
        d.add(side(
                "max_segment_bytes",
                "bytes",
                "largest payload of one segment; above the MSS means TSO/GSO/GRO",
                count(x -> x.maxSegmentBytes)));
        d.add(THROUGHPUT_BPS);
        d.add(side(
                        "state_overflows",
                        "segments",
                        "segments dropped from the bounded unACKed structure; should be 0",
                        count(x -> x.stateOverflows))
                .orNull());
        d.addAll(slowStartFields());
        d.add(side(
                        "rounds",
                        "rounds",
                        "rounds completed (a round ends when the ACK passes the highest sequence sent at its start)",
                        integer(s -> s.slowStart().rounds))
                .orNull());
        d.add(side(
                "cwnd_stuck_rounds",
                "rounds",
                "rounds after slow start with flight of a few segments while the sender had data",
                integer(s -> s.slowStart().cwndStuckRounds)));
        d.add(side(
                "rto_backoff.max_retries",
                "retransmissions",
                "the most retransmissions of one sequence number",
                count(x -> x.rtoMaxRetries)));
        d.add(side(
                "rto_backoff.gaps_us",
                "µs",
                "that range's schedule: original to first RTO, then between RTOs",
                gaps(s -> micros(s.direction().rtoGapsNanos, s.direction().rtoGapCount))));
        d.add(side(
                        "rto_backoff.growth_ratio",
                        "",
                        "mean ratio of successive gaps (2 for exponential backoff)",
                        new DecimalValue(s -> s.direction().rtoGrowthRatio()))
                .orNull());
        for (int i = 0; i < TcpDirectionStats.SEGMENT_SIZE_BUCKETS.length; i++) {
            int bucket = i;
            d.add(side(
                            "segment_sizes." + TcpDirectionStats.SEGMENT_SIZE_BUCKETS[i],
                            "segments",
                            SEGMENT_SIZE_RULES[i],
                            count(x -> x.segmentSizes[bucket]))
                    .orNull());
        }
        return List.copyOf(d);
    }

    private static List<FlowField> slowStartFields() {
        return List.of(
                slowStart(
                        "exit",
                        "",
                        "why slow start ended: loss, ack_train, delay, app_limited; rwnd_limited, app_limited or none without exit",
                        new TextValue(s -> s.slowStart().exitReason.jsonName())),
                slowStart(
                                "exit_us",
                                "µs",
                                "exit time after the first SYN (or first packet)",
                                new DecimalValue(s ->
                                        exited(s) ? (s.slowStart().exitNanos - s.originNanos()) / 1000.0 : Double.NaN))
                        .orNull(),
                slowStart(
                                "exit_cwnd_bytes",
                                "bytes",
                                "cwnd estimate at the exit",
                                integer(s -> exited(s) ? s.slowStart().exitCwndBytes : -1))
                        .orNull(),
                EXIT_CWND_SEGMENTS,
                slowStart(
                                "min_rtt_us",
                                "µs",
                                "the smallest data-to-ACK sample",
                                new DecimalValue(s -> s.slowStart().minRttNanos > 0
                                        ? s.slowStart().minRttNanos / 1000.0
                                        : Double.NaN))
                        .orNull(),
                slowStart(
                                "max_delivery_rate_bps",
                                "bit/s",
                                "largest per-round delivery rate",
                                new DecimalValue(s -> s.slowStart().maxDeliveryRateBytesPerSecond * 8))
                        .orNull(),
                slowStart(
                                "bdp_bytes",
                                "bytes",
                                "max delivery rate x min RTT",
                                integer(s -> s.slowStart().bdpBytes()))
                        .orNull(),
                slowStart(
                                "max_cwnd_bytes",
                                "bytes",
                                "largest per-round flight over the flow",
                                integer(s -> s.slowStart().maxCwndBytes))
                        .orNull(),
                PREMATURE);
    }

    private static List<FlowField> rttFields(String object, boolean withStdev) {
        List<FlowField> f = new ArrayList<>();
        String of = object.equals("rtt_us")
                ? "data-to-ACK samples (Karn's rule)"
                : "TSval-to-TSecr samples (first echo only)";
        f.add(side(
                object + ".samples",
                "samples",
                "number of " + of,
                count(d -> stats(d, object).count())));
        f.add(rtt(object, "min", RunningStats::min, "smallest"));
        f.add(object.equals("rtt_us") ? RTT_AVG_US : rtt(object, "avg", RunningStats::mean, "mean"));
        f.add(rtt(object, "max", RunningStats::max, "largest"));
        if (withStdev) {
            f.add(rtt(object, "stdev", RunningStats::stdev, "population standard deviation of the"));
        }
        return f;
    }

    private static FlowField rtt(String object, String name, ToDoubleFunction<RunningStats> statistic, String what) {
        return side(object + "." + name, "µs", what + " RTT sample", new DecimalValue(s -> {
                    RunningStats r = stats(s.direction(), object);
                    return r.count() == 0 ? Double.NaN : statistic.applyAsDouble(r) / 1000.0;
                }))
                .orNull();
    }

    private static RunningStats stats(TcpDirectionStats d, String object) {
        return object.equals("rtt_us") ? d.rtt : d.tsRtt;
    }

    private static List<FlowField> retransmits() {
        String[] rules = {
            "after the sender's RTO (silence of at least SRTT + 4 RTTVAR), or in the Loss episode it started",
            "after a loss signal (dup ACK or SACK above the hole), or in the Recovery episode",
            "the range was already cumulatively ACKed",
            "tail-loss probe: the highest segment, resent first with no loss signal",
            "none of the above"
        };
        List<FlowField> fields = new ArrayList<>();
        for (RetransmissionClass c : RetransmissionClass.values()) {
            fields.add(side("retransmits." + c.jsonName(), "segments", rules[c.ordinal()], count(d -> d.retransmits(c)))
                    .withColumn("retransmits_" + c.jsonName(), BIGINT, SUM_OF_DIRECTIONS)
                    .summed(c.jsonName()));
        }
        return List.copyOf(fields);
    }

    private static double throughput(FlowSubject s) {
        // from this direction's first data packet: idle time before the transfer (a connection opened
        // ahead of its use, an application handshake) is not part of the rate (iperf3's receiver
        // figure starts with the data too)
        TcpDirectionStats d = s.direction();
        long durationNanos = d.firstDataNanos >= 0 ? s.flow().lastSeenNanos() - d.firstDataNanos : 0;
        return durationNanos > 0 ? d.uniqueBytes * 8e9 / durationNanos : 0.0;
    }

    private static boolean exited(FlowSubject s) {
        return s.slowStart().exitNanos >= 0;
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
        return new FlowField(path, Scope.FLOW, unit, false, definition, null, null, FlowField.Window.NONE, value);
    }

    private static FlowField setup(String name, String unit, String definition, Value value) {
        return flow("setup." + name, unit, definition, value);
    }

    private static FlowField side(String path, String unit, String definition, Value value) {
        return new FlowField(path, Scope.DIRECTION, unit, false, definition, null, null, FlowField.Window.NONE, value);
    }

    private static FlowField slowStart(String name, String unit, String definition, Value value) {
        return side("slow_start." + name, unit, definition, value);
    }

    private static Value text(java.util.function.Function<FlowSubject, String> of) {
        return new TextValue(of);
    }

    private static Value integer(ToLongFunction<FlowSubject> of) {
        return new LongValue(of);
    }

    private static Value setupCount(SetupValue of) {
        return new LongValue(s -> of.of(s.flow().setup()));
    }

    private static Value count(ToLongFunction<TcpDirectionStats> of) {
        return new LongValue(s -> of.applyAsLong(s.direction()));
    }

    private static Value setupDecimal(ToDoubleFunction<SetupStats> of) {
        return new DecimalValue(s -> of.applyAsDouble(s.flow().setup()));
    }

    private static Value bool(java.util.function.Predicate<FlowSubject> of) {
        return new BoolValue(of);
    }

    private static Value setupGaps(SetupGaps of) {
        return new LongsValue(s -> of.of(s.flow().setup()));
    }

    private static Value gaps(java.util.function.Function<FlowSubject, long[]> of) {
        return new LongsValue(of);
    }

    private interface SetupValue {
        long of(SetupStats setup);
    }

    private interface SetupGaps {
        long[] of(SetupStats setup);
    }
}
