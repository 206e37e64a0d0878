package io.flowtrace.report;

import static io.flowtrace.report.FlowField.Columns.PER_DIRECTION;
import static io.flowtrace.report.FlowField.Columns.SUM_OF_DIRECTIONS;
import static io.flowtrace.report.FlowField.SqlType.BIGINT;
import static io.flowtrace.report.FlowField.SqlType.DOUBLE_PRECISION;
import static io.flowtrace.report.FlowField.SqlType.INTEGER;
import static io.flowtrace.report.FlowSubject.micros;

import io.flowtrace.core.tcp.RetransmissionClass;
import io.flowtrace.core.tcp.RunningStats;
import io.flowtrace.core.tcp.TcpDirectionStats;
import io.flowtrace.report.FlowField.DecimalValue;
import io.flowtrace.report.FlowField.LongValue;
import io.flowtrace.report.FlowField.LongsValue;
import io.flowtrace.report.FlowField.Scope;
import io.flowtrace.report.FlowField.Value;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * The per-direction half of the metric catalogue ({@link FlowFields} is the whole of it): every
 * field written under {@code c2s} and again under {@code s2c}, in report order, grouped as
 * docs/metrics.md groups them. {@link #ALL} is {@link FlowFields#DIRECTION}.
 */
final class DirectionFields {
    private DirectionFields() {}

    private static final String[] SEGMENT_SIZE_RULES = {
        "data segments of 1-99 bytes",
        "data segments of 100-535 bytes",
        "data segments of 536-1199 bytes",
        "data segments of 1200 bytes up to the MSS",
        "data segments above the MSS (super-segments)"
    };

    static final FlowField PACKETS = side("packets", "packets", "TCP packets this side sent", count(d -> d.packets))
            .withColumn("packets", BIGINT, PER_DIRECTION)
            .summed("packets");
    static final FlowField DATA_PACKETS = side(
                    "data_packets", "packets", "packets with payload", count(d -> d.dataPackets))
            .summed("dataPackets");
    static final FlowField DATA_BYTES = side(
                    "data_bytes", "bytes", "payload bytes, retransmissions included", count(d -> d.dataBytes))
            .withColumn("data_bytes", BIGINT, PER_DIRECTION)
            .summed("dataBytes");
    static final FlowField UNIQUE_BYTES = side(
                    "unique_bytes", "bytes", "sequence space covered at least once", count(d -> d.uniqueBytes))
            .withColumn("unique_bytes", BIGINT, PER_DIRECTION)
            .summed("uniqueBytes");
    static final FlowField RETRANSMITTED_PACKETS = side(
                    "retransmitted_packets",
                    "segments",
                    "segments occupying sequence space already sent (data or FIN) = the sum of retransmits.*",
                    count(d -> d.retransmittedPackets))
            .withColumn("retransmitted_packets", BIGINT, PER_DIRECTION)
            .summed("retransmittedPackets");
    static final FlowField RETRANSMITTED_BYTES = side(
            "retransmitted_bytes",
            "bytes",
            "payload bytes of the retransmitted segments",
            count(d -> d.retransmittedBytes));
    /** retransmits.rto, .fast, .spurious, .tlp, .other, in {@link RetransmissionClass} order. */
    static final List<FlowField> RETRANSMITS = retransmits();

    static final FlowField RTT_AVG_US = rtt("rtt_us", "avg", RunningStats::mean, "mean")
            .withColumn("rtt_avg_us", DOUBLE_PRECISION, PER_DIRECTION)
            .sampled("rttUs");
    static final FlowField THROUGHPUT_BPS = side(
                    "throughput_bps",
                    "bit/s",
                    "unique bytes x 8 / (last packet - this direction's first data packet)",
                    new DecimalValue(DirectionFields::throughput))
            .withColumn("throughput_bps", DOUBLE_PRECISION, PER_DIRECTION);
    /** Every direction field in report order. */
    static final List<FlowField> ALL = all();

    private static List<FlowField> all() {
        List<FlowField> d = new ArrayList<>(sent());
        d.addAll(acks());
        d.addAll(rttFields("rtt_us", true));
        d.addAll(rttFields("ts_rtt_us", false));
        d.addAll(flight());
        d.addAll(SlowStartFields.ALL);
        d.addAll(rounds());
        d.addAll(rtoBackoff());
        d.addAll(segmentSizes());
        return List.copyOf(d);
    }

    /** What this side sent and what became of it. */
    private static List<FlowField> sent() {
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
        return d;
    }

    /** What this side's ACKs said. */
    private static List<FlowField> acks() {
        return List.of(
                side("dup_acks", "ACKs", "duplicate ACKs this side sent (tshark's rule)", count(x -> x.dupAcks)),
                side(
                        "zero_windows",
                        "packets",
                        "packets this side sent advertising a zero window",
                        count(x -> x.zeroWindows)),
                side(
                                "dsacks",
                                "ACKs",
                                "ACKs this side sent carrying a D-SACK (RFC 2883): data received twice",
                                count(x -> x.dsacks))
                        .orNull()
                        .withColumn("dsacks", BIGINT, PER_DIRECTION),
                side(
                                "window.min_bytes",
                                "bytes",
                                "smallest receive window this side advertised, scaled (unscaled when window.scale is null)",
                                count(x -> x.windowMinBytes))
                        .orNull()
                        .withColumn("window_min_bytes", BIGINT, PER_DIRECTION),
                side(
                                "window.max_bytes",
                                "bytes",
                                "largest receive window this side advertised, scaled (unscaled when window.scale is null)",
                                count(x -> x.windowMaxBytes))
                        .orNull()
                        .withColumn("window_max_bytes", BIGINT, PER_DIRECTION),
                side(
                                "window.scale",
                                "",
                                "window scale shift applied to this side's windows (RFC 7323); 0 if not agreed, null without both SYNs",
                                integer(FlowSubject::windowScale))
                        .orNull());
    }

    /** Flight, segment sizes and rate. */
    private static List<FlowField> flight() {
        return List.of(
                side(
                        "max_in_flight_bytes",
                        "bytes",
                        "largest highest-sent - cumulative ACK - SACKed bytes",
                        count(x -> x.maxInFlightBytes)),
                side(
                                "mss",
                                "bytes",
                                "MSS option this side announced in its SYN; -1 (null) if unseen",
                                count(x -> x.mss))
                        .orNull(),
                side(
                        "max_segment_bytes",
                        "bytes",
                        "largest payload of one segment; above the MSS means TSO/GSO/GRO",
                        count(x -> x.maxSegmentBytes)),
                THROUGHPUT_BPS,
                side(
                                "state_overflows",
                                "segments",
                                "segments dropped from the bounded unACKed structure; should be 0",
                                count(x -> x.stateOverflows))
                        .orNull());
    }

    private static List<FlowField> rounds() {
        return List.of(
                side(
                                "rounds",
                                "rounds",
                                "rounds completed (a round ends when the ACK passes the highest sequence sent at its start)",
                                integer(s -> s.slowStart().rounds))
                        .orNull(),
                side(
                        "cwnd_stuck_rounds",
                        "rounds",
                        "rounds after slow start with flight of a few segments while the sender had data",
                        integer(s -> s.slowStart().cwndStuckRounds)),
                side(
                                "rwnd_limited_rounds",
                                "rounds",
                                "rounds of 2-6 segments, not cwnd-stuck, held by the peer's receive window",
                                integer(s -> s.slowStart().rwndLimitedSmallRounds))
                        .orNull()
                        .withColumn("rwnd_limited_rounds", INTEGER, PER_DIRECTION),
                side(
                                "app_limited_rounds",
                                "rounds",
                                "rounds of 2-6 segments, not cwnd-stuck, held by the application or send buffer",
                                integer(s -> s.slowStart().appLimitedSmallRounds))
                        .orNull()
                        .withColumn("app_limited_rounds", INTEGER, PER_DIRECTION));
    }

    private static List<FlowField> rtoBackoff() {
        return List.of(
                side(
                        "rto_backoff.max_retries",
                        "retransmissions",
                        "the most retransmissions of one sequence number",
                        count(x -> x.rtoMaxRetries)),
                side(
                        "rto_backoff.gaps_us",
                        "µs",
                        "that range's schedule: original to first RTO, then between RTOs",
                        new LongsValue(s -> micros(s.direction().rtoGapsNanos, s.direction().rtoGapCount))),
                side(
                                "rto_backoff.growth_ratio",
                                "",
                                "mean ratio of successive gaps (2 for exponential backoff)",
                                new DecimalValue(s -> s.direction().rtoGrowthRatio()))
                        .orNull());
    }

    private static List<FlowField> segmentSizes() {
        List<FlowField> d = new ArrayList<>();
        for (int i = 0; i < TcpDirectionStats.SEGMENT_SIZE_BUCKETS.length; i++) {
            int bucket = i;
            d.add(side(
                            "segment_sizes." + TcpDirectionStats.SEGMENT_SIZE_BUCKETS[i],
                            "segments",
                            SEGMENT_SIZE_RULES[i],
                            count(x -> x.segmentSizes[bucket]))
                    .orNull());
        }
        return d;
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

    static FlowField side(String path, String unit, String definition, Value value) {
        return new FlowField(path, Scope.DIRECTION, unit, false, definition, null, null, FlowField.Window.NONE, value);
    }

    static Value integer(ToLongFunction<FlowSubject> of) {
        return new LongValue(of);
    }

    private static Value count(ToLongFunction<TcpDirectionStats> of) {
        return new LongValue(s -> of.applyAsLong(s.direction()));
    }
}
