package io.flowtrace.report;

import static io.flowtrace.report.DirectionFields.integer;
import static io.flowtrace.report.DirectionFields.side;

import io.flowtrace.report.FlowField.BoolValue;
import io.flowtrace.report.FlowField.DecimalValue;
import io.flowtrace.report.FlowField.TextValue;
import io.flowtrace.report.FlowField.Value;
import java.util.List;

/** The {@code slow_start.*} fields of each direction, in report order: part of {@link DirectionFields}. */
final class SlowStartFields {
    private SlowStartFields() {}

    static final FlowField EXIT_CWND_SEGMENTS = slowStart(
                    "exit_cwnd_segments",
                    "cwnd at slow start exit (segments)",
                    "segments",
                    "exit_cwnd_bytes in sender MSS",
                    integer(s -> exited(s) && s.senderMss() > 0
                            ? Math.round((double) s.slowStart().exitCwndBytes / s.senderMss())
                            : -1))
            .orNull()
            .sampled("exitCwndSegments");
    static final FlowField PREMATURE = slowStart(
                    "premature",
                    "slow start exit premature",
                    "",
                    "exit cwnd below half the later max flight or half the BDP",
                    new BoolValue(s -> exited(s) && s.slowStart().premature()))
            .orNull()
            .summed("prematureExits");

    /** Every slow_start field in report order. */
    static final List<FlowField> ALL = all();

    private static List<FlowField> all() {
        return List.of(
                slowStart(
                        "exit",
                        "slow start ended by",
                        "",
                        "why slow start ended: loss, ack_train, delay, app_limited; rwnd_limited, app_limited or none without exit",
                        new TextValue(s -> s.slowStart().exitReason.jsonName())),
                slowStart(
                                "exit_us",
                                "slow start ended after",
                                "µs",
                                "exit time after the first SYN (or first packet)",
                                new DecimalValue(s ->
                                        exited(s) ? (s.slowStart().exitNanos - s.originNanos()) / 1000.0 : Double.NaN))
                        .orNull(),
                slowStart(
                                "exit_cwnd_bytes",
                                "cwnd at slow start exit",
                                "bytes",
                                "cwnd estimate at the exit",
                                integer(s -> exited(s) ? s.slowStart().exitCwndBytes : -1))
                        .orNull(),
                EXIT_CWND_SEGMENTS,
                slowStart(
                                "min_rtt_us",
                                "slow start min RTT",
                                "µs",
                                "the smallest data-to-ACK sample",
                                new DecimalValue(s -> s.slowStart().minRttNanos > 0
                                        ? s.slowStart().minRttNanos / 1000.0
                                        : Double.NaN))
                        .orNull(),
                slowStart(
                                "max_delivery_rate_bps",
                                "slow start max delivery rate",
                                "bit/s",
                                "largest per-round delivery rate",
                                new DecimalValue(s -> s.slowStart().maxDeliveryRateBytesPerSecond * 8))
                        .orNull(),
                slowStart(
                                "bdp_bytes",
                                "bandwidth-delay product",
                                "bytes",
                                "max delivery rate x min RTT",
                                integer(s -> s.slowStart().bdpBytes()))
                        .orNull(),
                slowStart(
                                "max_cwnd_bytes",
                                "max cwnd (largest flight per round)",
                                "bytes",
                                "largest per-round flight over the flow",
                                integer(s -> s.slowStart().maxCwndBytes))
                        .orNull(),
                PREMATURE);
    }

    private static boolean exited(FlowSubject s) {
        return s.slowStart().exitNanos >= 0;
    }

    private static FlowField slowStart(String name, String label, String unit, String definition, Value value) {
        return side("slow_start." + name, label, unit, definition, value);
    }
}
