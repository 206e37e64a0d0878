package io.flowtrace.cli.output;

import java.util.Map;

/**
 * Plain labels and units for the JSON field names of a direction (docs/metrics.md defines each
 * field); the unit follows the name's suffix: {@code _us} (and fields inside an {@code _us} object)
 * are durations, {@code bytes} sizes, {@code _bps} bit rates; -1 and NaN mean "none".
 */
public final class ReportLabels {
    private static final Map<String, String> LABELS = Map.ofEntries(
            Map.entry("packets", "packets"),
            Map.entry("data_packets", "data packets"),
            Map.entry("data_bytes", "data sent (with retransmissions)"),
            Map.entry("unique_bytes", "unique data sent"),
            Map.entry("retransmitted_packets", "retransmitted packets"),
            Map.entry("retransmitted_bytes", "retransmitted data"),
            Map.entry("retransmits.rto", "  by timeout (RTO)"),
            Map.entry("retransmits.fast", "  fast retransmit / SACK recovery"),
            Map.entry("retransmits.spurious", "  spurious (already ACKed)"),
            Map.entry("retransmits.tlp", "  tail-loss probe (TLP)"),
            Map.entry("retransmits.other", "  other"),
            Map.entry("reordered_packets", "reordered packets"),
            Map.entry("network_duplicates", "duplicated by the network"),
            Map.entry("window_probes", "zero-window probes"),
            Map.entry("keep_alives", "keep-alives"),
            Map.entry("lost_segments", "lost before the capture point"),
            Map.entry("acked_unseen", "ACKed but not captured"),
            Map.entry("dup_acks", "duplicate ACKs sent"),
            Map.entry("zero_windows", "zero windows advertised"),
            Map.entry("dsacks", "DSACKs sent"),
            Map.entry("window.min_bytes", "smallest window advertised"),
            Map.entry("window.max_bytes", "largest window advertised"),
            Map.entry("window.scale", "window scale applied (shift)"),
            Map.entry("rtt_us.samples", "RTT samples (data to ACK)"),
            Map.entry("rtt_us.min", "RTT min"),
            Map.entry("rtt_us.avg", "RTT average"),
            Map.entry("rtt_us.max", "RTT max"),
            Map.entry("rtt_us.stdev", "RTT standard deviation"),
            Map.entry("ts_rtt_us.samples", "RTT samples (TCP timestamps)"),
            Map.entry("ts_rtt_us.min", "timestamp RTT min"),
            Map.entry("ts_rtt_us.avg", "timestamp RTT average"),
            Map.entry("ts_rtt_us.max", "timestamp RTT max"),
            Map.entry("max_in_flight_bytes", "max data in flight"),
            Map.entry("mss", "MSS (bytes)"),
            Map.entry("max_segment_bytes", "largest segment"),
            Map.entry("throughput_bps", "throughput (unique data)"),
            Map.entry("state_overflows", "state overflows (should be 0)"),
            Map.entry("slow_start.exit", "slow start ended by"),
            Map.entry("slow_start.exit_us", "slow start ended after"),
            Map.entry("slow_start.exit_cwnd_bytes", "cwnd at slow start exit"),
            Map.entry("slow_start.exit_cwnd_segments", "cwnd at slow start exit (segments)"),
            Map.entry("slow_start.min_rtt_us", "slow start min RTT"),
            Map.entry("slow_start.max_delivery_rate_bps", "slow start max delivery rate"),
            Map.entry("slow_start.bdp_bytes", "bandwidth-delay product"),
            Map.entry("slow_start.max_cwnd_bytes", "max cwnd (largest flight per round)"),
            Map.entry("slow_start.premature", "slow start exit premature"),
            Map.entry("rounds", "rounds (RTTs with data)"),
            Map.entry("cwnd_stuck_rounds", "rounds with cwnd not growing"),
            Map.entry("rwnd_limited_rounds", "small rounds held by the receive window"),
            Map.entry("app_limited_rounds", "small rounds held by the application"),
            Map.entry("rto_backoff.max_retries", "most RTO retries of one segment"),
            Map.entry("rto_backoff.gaps_us", "RTO backoff gaps"),
            Map.entry("rto_backoff.growth_ratio", "RTO backoff growth ratio"),
            Map.entry("segment_sizes.lt100", "segments under 100 B"),
            Map.entry("segment_sizes.lt536", "segments 100-535 B"),
            Map.entry("segment_sizes.lt1200", "segments 536-1,199 B"),
            Map.entry("segment_sizes.le_mss", "segments 1,200 B to MSS"),
            Map.entry("segment_sizes.above_mss", "segments above MSS (TSO/GRO)"));

    private ReportLabels() {}

    /** Whether a field path inside a direction has a plain label (ReportLabelsTest: every catalogue field has). */
    static boolean labelled(String key) {
        return LABELS.containsKey(key);
    }

    /** The plain label of a field path inside a direction ("rtt_us.min"), its JSON name when it has none. */
    static String label(String key) {
        String l = LABELS.get(key);
        return l != null ? l : key.replace('_', ' ');
    }

    static String format(String key, long value) {
        if (value < 0) {
            return Units.NONE;
        }
        if (isDuration(key)) {
            return Units.micros(value);
        }
        if (isBytes(key)) {
            return Units.bytes(value);
        }
        return Units.count(value);
    }

    static String format(String key, double value) {
        if (Double.isNaN(value) || value < 0) {
            return Units.NONE;
        }
        if (isDuration(key)) {
            return Units.micros(value);
        }
        if (key.endsWith("_bps")) {
            return Units.bitRate(value);
        }
        if (isBytes(key)) {
            return Units.bytes(Math.round(value));
        }
        return Units.significant(value);
    }

    private static boolean isDuration(String key) {
        if (key.endsWith(".samples")) {
            return false;
        }
        return key.endsWith("_us") || key.contains("_us.");
    }

    private static boolean isBytes(String key) {
        return key.endsWith("bytes") && !key.endsWith("_segments");
    }
}
