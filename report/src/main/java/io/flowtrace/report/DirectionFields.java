package io.flowtrace.report;

import static io.flowtrace.report.FlowField.Columns.PER_DIRECTION;
import static io.flowtrace.report.FlowField.Columns.SUM_OF_DIRECTIONS;
import static io.flowtrace.report.FlowField.SqlType.BIGINT;
import static io.flowtrace.report.FlowField.SqlType.DOUBLE_PRECISION;
import static io.flowtrace.report.FlowField.SqlType.INTEGER;
import static io.flowtrace.report.FlowSubject.micros;

import io.flowtrace.core.tcp.RetransmissionClass;
import io.flowtrace.core.tcp.TcpDirectionStats;
import io.flowtrace.report.FlowField.DecimalValue;
import io.flowtrace.report.FlowField.LongValue;
import io.flowtrace.report.FlowField.LongsValue;
import io.flowtrace.report.FlowField.Scope;
import io.flowtrace.report.FlowField.Value;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * The per-direction half of the metric catalogue ({@link FlowFields} is the whole of it): every
 * field written under {@code c2s} and again under {@code s2c}, in report order, grouped as
 * docs/metrics.md groups them. {@link #ALL} is {@link FlowFields#DIRECTION}.
 */
final class DirectionFields {
    private DirectionFields() {}

    private static final String[] SEGMENT_SIZE_LABELS = {
        "segments under 100 B",
        "segments 100-535 B",
        "segments 536-1,199 B",
        "segments 1,200 B to MSS",
        "segments above MSS (TSO/GRO)"
    };
    private static final String[] SEGMENT_SIZE_RULES = {
        "data segments of 1-99 bytes",
        "data segments of 100-535 bytes",
        "data segments of 536-1199 bytes",
        "data segments of 1200 bytes up to the MSS",
        "data segments above the MSS (super-segments)"
    };

    static final FlowField PACKETS = side(
                    "packets", "packets", "packets", "TCP packets this side sent", count(d -> d.packets))
            .withColumn("packets", BIGINT, PER_DIRECTION)
            .summed("packets");
    static final FlowField DATA_PACKETS = side(
                    "data_packets", "data packets", "packets", "packets with payload", count(d -> d.dataPackets))
            .summed("dataPackets");
    static final FlowField DATA_BYTES = side(
                    "data_bytes",
                    "data sent (with retransmissions)",
                    "bytes",
                    "payload bytes, retransmissions included",
                    count(d -> d.dataBytes))
            .withColumn("data_bytes", BIGINT, PER_DIRECTION)
            .summed("dataBytes");
    static final FlowField UNIQUE_BYTES = side(
                    "unique_bytes",
                    "unique data sent",
                    "bytes",
                    "sequence space covered at least once",
                    count(d -> d.uniqueBytes))
            .withColumn("unique_bytes", BIGINT, PER_DIRECTION)
            .summed("uniqueBytes");
    static final FlowField RETRANSMITTED_PACKETS = side(
                    "retransmitted_packets",
                    "retransmitted packets",
                    "segments",
                    "segments occupying sequence space already sent (data or FIN) = the sum of retransmits.*",
                    count(d -> d.retransmittedPackets))
            .withColumn("retransmitted_packets", BIGINT, PER_DIRECTION)
            .summed("retransmittedPackets");
    static final FlowField RETRANSMITTED_BYTES = side(
            "retransmitted_bytes",
            "retransmitted data",
            "bytes",
            "payload bytes of the retransmitted segments",
            count(d -> d.retransmittedBytes));
    /** retransmits.rto, .fast, .spurious, .tlp, .other, in {@link RetransmissionClass} order. */
    static final List<FlowField> RETRANSMITS = retransmits();

    static final FlowField RTT_AVG_US = RttFields.RTT_AVG_US;
    static final FlowField THROUGHPUT_BPS = side(
                    "throughput_bps",
                    "throughput (unique data)",
                    "bit/s",
                    "unique bytes x 8 / (last packet - this direction's first data packet)",
                    new DecimalValue(DirectionFields::throughput))
            .withColumn("throughput_bps", DOUBLE_PRECISION, PER_DIRECTION);
    /** Every direction field in report order. */
    static final List<FlowField> ALL = all();

    private static List<FlowField> all() {
        List<FlowField> d = new ArrayList<>(sent());
        d.addAll(acks());
        d.addAll(RttFields.of("rtt_us", true));
        d.addAll(RttFields.of("ts_rtt_us", false));
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
                "reordered packets",
                "segments",
                "holes filled by the late original, not a retransmission",
                count(x -> x.reorderedPackets)));
        d.add(side(
                "network_duplicates",
                "duplicated by the network",
                "segments",
                "the same segment again with the same IPv4 id",
                count(x -> x.networkDuplicates)));
        d.add(side(
                        "window_probes",
                        "zero-window probes",
                        "segments",
                        "probes into a closed window",
                        count(x -> x.windowProbes))
                .withLaterColumn("window_probes", BIGINT, PER_DIRECTION));
        d.add(side(
                        "keep_alives",
                        "keep-alives",
                        "segments",
                        "keep-alive probes (tshark's rule, or Linux's probe while the window is open)",
                        count(x -> x.keepAlives))
                .orNull());
        d.add(side(
                "lost_segments",
                "lost before the capture point",
                "segments",
                "new data starting beyond the highest byte seen: missed before the capture point",
                count(x -> x.lostSegments)));
        d.add(side(
                        "acked_unseen",
                        "ACKed but not captured",
                        "ACKs",
                        "ACKs from the peer for data this capture never saw",
                        count(x -> x.ackedUnseen))
                .orNull());
        d.add(side("resets", "resets sent", "segments", "segments with RST this side sent", count(x -> x.resets))
                .orNull()
                .withColumn("resets", BIGINT, PER_DIRECTION));
        return d;
    }

    /** What this side's ACKs said. */
    private static List<FlowField> acks() {
        return List.of(
                side(
                        "dup_acks",
                        "duplicate ACKs sent",
                        "ACKs",
                        "duplicate ACKs this side sent (tshark's rule)",
                        count(x -> x.dupAcks)),
                side(
                        "zero_windows",
                        "zero windows advertised",
                        "packets",
                        "packets this side sent advertising a zero window",
                        count(x -> x.zeroWindows)),
                side(
                                "dsacks",
                                "DSACKs sent",
                                "ACKs",
                                "ACKs this side sent carrying a D-SACK (RFC 2883): data received twice",
                                count(x -> x.dsacks))
                        .orNull()
                        .withColumn("dsacks", BIGINT, PER_DIRECTION),
                side(
                                "window.min_bytes",
                                "smallest window advertised",
                                "bytes",
                                "smallest receive window this side advertised, scaled (unscaled when window.scale is null)",
                                count(x -> x.windowMinBytes))
                        .orNull()
                        .withColumn("window_min_bytes", BIGINT, PER_DIRECTION),
                side(
                                "window.max_bytes",
                                "largest window advertised",
                                "bytes",
                                "largest receive window this side advertised, scaled (unscaled when window.scale is null)",
                                count(x -> x.windowMaxBytes))
                        .orNull()
                        .withColumn("window_max_bytes", BIGINT, PER_DIRECTION),
                side(
                                "window.scale",
                                "window scale applied (shift)",
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
                        "max data in flight",
                        "bytes",
                        "largest highest-sent - cumulative ACK - SACKed bytes",
                        count(x -> x.maxInFlightBytes)),
                side(
                                "mss",
                                "MSS (bytes)",
                                "bytes",
                                "MSS option this side announced in its SYN; -1 (null) if unseen",
                                count(x -> x.mss))
                        .orNull(),
                side(
                        "max_segment_bytes",
                        "largest segment",
                        "bytes",
                        "largest payload of one segment; above the MSS means TSO/GSO/GRO",
                        count(x -> x.maxSegmentBytes)),
                THROUGHPUT_BPS,
                side(
                                "state_overflows",
                                "state overflows (should be 0)",
                                "segments",
                                "segments dropped from the bounded unACKed structure; should be 0",
                                count(x -> x.stateOverflows))
                        .orNull());
    }

    private static List<FlowField> rounds() {
        return List.of(
                side(
                                "rounds",
                                "rounds (RTTs with data)",
                                "rounds",
                                "rounds completed (a round ends when the ACK passes the highest sequence sent at its start)",
                                integer(s -> s.slowStart().rounds))
                        .orNull(),
                side(
                        "cwnd_stuck_rounds",
                        "rounds with cwnd not growing",
                        "rounds",
                        "rounds after slow start with flight of a few segments while the sender had data",
                        integer(s -> s.slowStart().cwndStuckRounds)),
                side(
                                "rwnd_limited_rounds",
                                "small rounds held by the receive window",
                                "rounds",
                                "rounds of 2-6 segments, not cwnd-stuck, held by the peer's receive window",
                                integer(s -> s.slowStart().rwndLimitedSmallRounds))
                        .orNull()
                        .withColumn("rwnd_limited_rounds", INTEGER, PER_DIRECTION),
                side(
                                "app_limited_rounds",
                                "small rounds held by the application",
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
                        "most RTO retries of one segment",
                        "retransmissions",
                        "the most retransmissions of one sequence number",
                        count(x -> x.rtoMaxRetries)),
                side(
                        "rto_backoff.gaps_us",
                        "RTO backoff gaps",
                        "µs",
                        "that range's schedule: original to first RTO, then between RTOs",
                        new LongsValue(s -> micros(s.direction().rtoGapsNanos, s.direction().rtoGapCount))),
                side(
                                "rto_backoff.growth_ratio",
                                "RTO backoff growth ratio",
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
                            SEGMENT_SIZE_LABELS[i],
                            "segments",
                            SEGMENT_SIZE_RULES[i],
                            count(x -> x.segmentSizes[bucket]))
                    .orNull());
        }
        return d;
    }

    private static List<FlowField> retransmits() {
        String[] labels = {
            "  by timeout (RTO)",
            "  fast retransmit / SACK recovery",
            "  spurious (already ACKed)",
            "  tail-loss probe (TLP)",
            "  other"
        };
        String[] rules = {
            "after the sender's RTO (silence of at least SRTT + 4 RTTVAR), or in the Loss episode it started",
            "after a loss signal (dup ACK or SACK above the hole), or in the Recovery episode",
            "the range was already cumulatively ACKed",
            "tail-loss probe: the highest segment, resent first with no loss signal",
            "none of the above"
        };
        List<FlowField> fields = new ArrayList<>();
        for (RetransmissionClass c : RetransmissionClass.values()) {
            fields.add(side(
                            "retransmits." + c.jsonName(),
                            labels[c.ordinal()],
                            "segments",
                            rules[c.ordinal()],
                            count(d -> d.retransmits(c)))
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

    static FlowField side(String path, String label, String unit, String definition, Value value) {
        return new FlowField(
                path, Scope.DIRECTION, unit, false, definition, label, null, null, FlowField.Window.NONE, value);
    }

    static Value integer(ToLongFunction<FlowSubject> of) {
        return new LongValue(of);
    }

    static Value count(ToLongFunction<TcpDirectionStats> of) {
        return new LongValue(s -> of.applyAsLong(s.direction()));
    }
}
