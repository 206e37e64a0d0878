package io.flowtrace.jobs.output;

import io.flowtrace.avro.DeadLetter;
import io.flowtrace.avro.Distribution;
import io.flowtrace.avro.RetransmitCounts;
import io.flowtrace.avro.ServiceWindow;
import io.flowtrace.avro.TcpEvent;
import io.flowtrace.avro.VantageWindow;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.jobs.conntrack.BudgetWindow;
import io.flowtrace.jobs.flow.FlowRow;
import io.flowtrace.jobs.join.FlowConntrack;
import java.util.List;

/**
 * The upserts of the sink tables (deploy/sql/, migrations.list), each declared as its column list
 * ({@link Upsert}); flow_summary's come from core's metric catalogue ({@link FlowSummaryColumns}).
 * Every statement is an idempotent upsert on the table's stable key, so a replay after a failure
 * rewrites the same rows; flow rows only move forward in record time, so a replayed older version
 * of a flow never overwrites a newer one.
 */
public final class PostgresRows {
    private PostgresRows() {}

    public static final Upsert<FlowRow> FLOW_SUMMARY = FlowSummaryColumns.upsert();

    public static final Upsert<TcpEvent> TCP_EVENTS = Upsert.<TcpEvent>into(
                    "tcp_events", "vantage", "client", "server", "instance", "event_index")
            .text("vantage", e -> PacketEvents.vantage(e.getFlow().getVantage()))
            .text("client", e -> e.getFlow().getClient())
            .text("server", e -> e.getFlow().getServer())
            .int8("instance", e -> e.getFlow().getInstance())
            .int8("event_index", TcpEvent::getIndex)
            .micros("event_time", TcpEvent::getTimeUs)
            .text("kind", e -> e.getKind().name())
            .text("direction", e -> e.getDirection().name())
            .textOrNull(
                    "retransmit_class",
                    e -> e.getRetransmitClass() == null
                            ? null
                            : e.getRetransmitClass().name())
            .int8OrNull("seq", TcpEvent::getSeq)
            .int8OrNull("bytes", TcpEvent::getBytes)
            .int8OrNull("since_original_us", TcpEvent::getSinceOriginalUs)
            .int4OrNull("retries", TcpEvent::getRetries)
            .updateAll();

    static final Upsert<ServiceWindow> SERVICE_WINDOWS = serviceWindows();

    private static Upsert<ServiceWindow> serviceWindows() {
        Upsert.Builder<ServiceWindow> b = Upsert.<ServiceWindow>into(
                        "service_windows", "vantage", "service", "window_size_ms", "window_start")
                .text("vantage", w -> PacketEvents.vantage(w.getVantage()))
                .text("service", ServiceWindow::getService)
                .int8("window_size_ms", ServiceWindow::getWindowSizeMs)
                .millis("window_start", ServiceWindow::getWindowStartMs)
                .millis("window_end", ServiceWindow::getWindowEndMs)
                .int8("connections", ServiceWindow::getConnections)
                .int8("completed_handshakes", ServiceWindow::getCompletedHandshakes)
                .int8("setup_count", w -> w.getSetupUs().getCount())
                .float8OrNull("setup_mean_us", w -> w.getSetupUs().getMean())
                .float8OrNull("setup_sd_us", w -> w.getSetupUs().getSd());
        percentiles(b, "setup_", ServiceWindow::getSetupUs)
                .int8("syn_retransmits", ServiceWindow::getSynRetransmits)
                .int8("synack_retransmits", ServiceWindow::getSynackRetransmits)
                .int8("data_packets", ServiceWindow::getDataPackets)
                .int8("data_bytes", ServiceWindow::getDataBytes)
                .int8("retransmitted_packets", ServiceWindow::getRetransmittedPackets);
        retransmits(b, ServiceWindow::getRetransmits)
                .float8OrNull("retransmit_rate", ServiceWindow::getRetransmitRate)
                .int8("rtt_count", w -> w.getRttUs().getCount());
        return percentiles(b, "rtt_", ServiceWindow::getRttUs)
                .float8("throughput_bps", ServiceWindow::getThroughputBps)
                .int8("slow_start_exits", w -> w.getSlowStartExitCwndSegments().getCount())
                .float8OrNull(
                        "slow_start_exit_cwnd_p50",
                        w -> w.getSlowStartExitCwndSegments().getP50())
                .float8OrNull(
                        "slow_start_exit_cwnd_p90",
                        w -> w.getSlowStartExitCwndSegments().getP90())
                .int8("slow_start_premature", ServiceWindow::getSlowStartPremature)
                .float8OrNull("slow_start_premature_share", ServiceWindow::getSlowStartPrematureShare)
                .updateAll();
    }

    static final Upsert<VantageWindow> VANTAGE_WINDOWS = vantageWindows();

    private static Upsert<VantageWindow> vantageWindows() {
        Upsert.Builder<VantageWindow> b = Upsert.<VantageWindow>into(
                        "vantage_windows", "vantage", "window_size_ms", "window_start")
                .text("vantage", w -> PacketEvents.vantage(w.getVantage()))
                .int8("window_size_ms", VantageWindow::getWindowSizeMs)
                .millis("window_start", VantageWindow::getWindowStartMs)
                .millis("window_end", VantageWindow::getWindowEndMs)
                .int8("flows_ended", VantageWindow::getFlowsEnded)
                .int8("packets", VantageWindow::getPackets)
                .int8("late_packets", VantageWindow::getLatePackets)
                .int8("data_packets", VantageWindow::getDataPackets)
                .int8("retransmitted_packets", VantageWindow::getRetransmittedPackets);
        retransmits(b, VantageWindow::getRetransmits);
        return percentiles(b, "rtt_", VantageWindow::getRttUs)
                .float8("throughput_bps", VantageWindow::getThroughputBps)
                .updateAll();
    }

    /** The five retransmission classes in contract order (rto, fast, spurious, tlp, other). */
    private static <T> Upsert.Builder<T> retransmits(Upsert.Builder<T> b, Upsert.Get<T, RetransmitCounts> counts) {
        return b.int8("retransmits_rto", r -> counts.of(r).getRto())
                .int8("retransmits_fast", r -> counts.of(r).getFast())
                .int8("retransmits_spurious", r -> counts.of(r).getSpurious())
                .int8("retransmits_tlp", r -> counts.of(r).getTlp())
                .int8("retransmits_other", r -> counts.of(r).getOther());
    }

    /** PREFIX_p50_us, _p90_us, _p99_us of a distribution (null when empty). */
    private static <T> Upsert.Builder<T> percentiles(
            Upsert.Builder<T> b, String prefix, Upsert.Get<T, Distribution> d) {
        return b.float8OrNull(prefix + "p50_us", r -> d.of(r).getP50())
                .float8OrNull(prefix + "p90_us", r -> d.of(r).getP90())
                .float8OrNull(prefix + "p99_us", r -> d.of(r).getP99());
    }

    static final Upsert<DeadLetter> DEAD_LETTERS = Upsert.<DeadLetter>into(
                    "dead_letters", "topic", "kafka_partition", "kafka_offset")
            .text("topic", DeadLetter::getTopic)
            .int4("kafka_partition", DeadLetter::getPartition)
            .int8("kafka_offset", DeadLetter::getOffset)
            .millis("kafka_timestamp", DeadLetter::getTimestampMs)
            .text("stage", d -> d.getStage().name())
            .text("reason", DeadLetter::getReason)
            .textOrNull("error_class", DeadLetter::getErrorClass)
            .int8OrNull("schema_fingerprint", DeadLetter::getSchemaFingerprint)
            .bytesOrNull("record_key", DeadLetter::getKey)
            .bytes("raw", DeadLetter::getRaw)
            .millis("job_time", DeadLetter::getJobTimeMs)
            .keepFirst();

    static final Upsert<BudgetWindow> CONNTRACK_BUDGETS = conntrackBudgets();

    private static Upsert<BudgetWindow> conntrackBudgets() {
        return Upsert.<BudgetWindow>into("conntrack_budgets", "vantage", "window_size_ms", "window_start")
                .text("vantage", b -> PacketEvents.vantage(b.record.getVantage()))
                .int8("window_size_ms", b -> b.record.getWindowSizeMs())
                .millis("window_start", b -> b.record.getWindowStartMs())
                .millis("window_end", b -> b.record.getWindowEndMs())
                .int8("events", b -> b.record.getEventsNew() + b.record.getEventsUpdate() + b.record.getEventsDestroy())
                .float8("events_per_second", b -> b.record.getEventsPerS())
                .int8("exact_bytes", b -> b.record.getMessageBytes())
                .int8("estimated_bytes", b -> b.record.getEstimatedBytes())
                .int8("truesize_bytes", b -> b.record.getTruesizeBytes())
                .float8OrNull("waste_ratio", b -> b.record.getWasteRatio())
                .int8("peak_burst_10ms", b -> b.record.getPeakBurst10msBytes())
                .int8("peak_burst_100ms", b -> b.record.getPeakBurst100msBytes())
                .int8("buffer_needed_bytes", b -> b.record.getBufferNeededBytes())
                .int8("buffer_configured_bytes", b -> b.record.getConfiguredBufferBytes())
                .int8("enobufs_predicted", b -> b.predictedEnobufs)
                .int8OrNull("enobufs_observed", b -> b.record.getEnobufsObserved())
                .int8("events_new", b -> b.record.getEventsNew())
                .int8("events_update", b -> b.record.getEventsUpdate())
                .int8("events_destroy", b -> b.record.getEventsDestroy())
                .float8("exact_bytes_per_second", b -> b.record.getMessageBytesPerS())
                .float8("truesize_bytes_per_second", b -> b.record.getTruesizeBytesPerS())
                .float8OrNull("size_min", b -> size(b).getMin())
                .float8OrNull("size_mean", b -> size(b).getMean())
                .float8OrNull("size_p50", b -> size(b).getP50())
                .float8OrNull("size_p90", b -> size(b).getP90())
                .float8OrNull("size_p99", b -> size(b).getP99())
                .float8OrNull("size_max", b -> size(b).getMax())
                .float8("drain_latency_ms", b -> b.record.getDrainLatencyMs())
                .int8("buffer_effective_bytes", b -> b.effectiveRcvbuf)
                .float8OrNull("buffer_utilisation", b -> b.record.getBufferUtilisation())
                .int8("predicted_drops", b -> b.predictedDrops)
                .text("enobufs_risk", b -> b.risk)
                .updateAll();
    }

    private static Distribution size(BudgetWindow b) {
        return b.record.getMessageSizeBytes();
    }

    static final Upsert<FlowConntrack> FLOW_CONNTRACK = flowConntrack();

    private static Upsert<FlowConntrack> flowConntrack() {
        return Upsert.<FlowConntrack>into("flow_conntrack", "vantage", "client", "server", "instance")
                .text("vantage", r -> r.vantage)
                .text("client", r -> r.client)
                .text("server", r -> r.server)
                .int8("instance", r -> r.instance)
                .text("ct_vantage", r -> r.ctVantage)
                .int8OrNull("ct_id", r -> r.ctId >= 0 ? r.ctId : null)
                .text("tuple_side", r -> r.tupleSide)
                .text("nat", r -> r.nat)
                .text("pre_nat_client", r -> r.preNatClient)
                .text("pre_nat_server", r -> r.preNatServer)
                .text("post_nat_client", r -> r.postNatClient)
                .text("post_nat_server", r -> r.postNatServer)
                .int8("ct_status", r -> r.ctStatus)
                .int4OrNull("ct_tcp_state", r -> r.ctTcpState >= 0 ? r.ctTcpState : null)
                .nanosOrNull("ct_start", r -> r.ctStartNs >= 0 ? r.ctStartNs : null)
                .nanosOrNull("ct_stop", r -> r.ctStopNs >= 0 ? r.ctStopNs : null)
                .int8OrNull("ct_start_ns", r -> r.ctStartNs >= 0 ? r.ctStartNs : null)
                .int8OrNull("ct_stop_ns", r -> r.ctStopNs >= 0 ? r.ctStopNs : null)
                .bool("ct_destroyed", r -> r.ctDestroyed)
                .int8OrNull("ct_c2s_packets", r -> r.ctC2sPackets >= 0 ? r.ctC2sPackets : null)
                .int8OrNull("ct_c2s_bytes", r -> r.ctC2sBytes >= 0 ? r.ctC2sBytes : null)
                .int8OrNull("ct_s2c_packets", r -> r.ctS2cPackets >= 0 ? r.ctS2cPackets : null)
                .int8OrNull("ct_s2c_bytes", r -> r.ctS2cBytes >= 0 ? r.ctS2cBytes : null)
                .int8("captured_c2s_packets", r -> r.capturedC2sPackets)
                .int8("captured_s2c_packets", r -> r.capturedS2cPackets)
                .int8OrNull("c2s_missing_packets", r -> r.c2sMissingPackets)
                .int8OrNull("s2c_missing_packets", r -> r.s2cMissingPackets)
                .bool("flow_final", r -> r.flowFinal)
                .int8("join_time_us", r -> r.joinTimeUs)
                .updateAllWhere("flow_conntrack.join_time_us <= EXCLUDED.join_time_us");
    }

    /** Every sink table's upsert. */
    static List<Upsert<?>> all() {
        return List.of(
                FLOW_SUMMARY,
                TCP_EVENTS,
                SERVICE_WINDOWS,
                VANTAGE_WINDOWS,
                DEAD_LETTERS,
                CONNTRACK_BUDGETS,
                FLOW_CONNTRACK,
                OpenVpnRows.SESSIONS,
                OpenVpnRows.SERVER_WINDOWS);
    }
}
