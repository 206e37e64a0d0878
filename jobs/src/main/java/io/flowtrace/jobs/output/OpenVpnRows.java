package io.flowtrace.jobs.output;

import io.flowtrace.avro.OpenVpnDirection;
import io.flowtrace.avro.OpenVpnServerWindow;
import io.flowtrace.avro.OpenVpnSessionRecord;
import io.flowtrace.avro.mapping.PacketEvents;

/**
 * Idempotent upserts of the OpenVPN sink tables (deploy/sql/V8__openvpn.sql, V10__openvpn_wire.sql), each declared as its
 * column list ({@link Upsert}): one row per session in {@code openvpn_sessions}, one per server and
 * window in {@code openvpn_server_windows}.
 */
final class OpenVpnRows {
    private OpenVpnRows() {}

    static final Upsert<OpenVpnSessionRecord> SESSIONS = sessions();

    private static Upsert<OpenVpnSessionRecord> sessions() {
        Upsert.Builder<OpenVpnSessionRecord> b = Upsert.<OpenVpnSessionRecord>into(
                        "openvpn_sessions", "vantage", "client", "server", "first_seen_us")
                .text("vantage", r -> PacketEvents.vantage(r.getVantage()))
                .text("client", OpenVpnSessionRecord::getClient)
                .text("server", OpenVpnSessionRecord::getServer)
                .int8("first_seen_us", OpenVpnSessionRecord::getFirstSeenUs)
                .micros("first_seen", OpenVpnSessionRecord::getFirstSeenUs)
                .int8("last_seen_us", OpenVpnSessionRecord::getLastSeenUs)
                .micros("last_seen", OpenVpnSessionRecord::getLastSeenUs)
                .textOrNull("client_id", OpenVpnSessionRecord::getClientId)
                .textOrNull("server_id", OpenVpnSessionRecord::getServerId)
                .bool("setup_completed", r -> r.getSetup().getCompleted())
                .int8OrNull("setup_us", r -> r.getSetup().getSetupUs())
                .textOrNull("setup_end", r -> r.getSetup().getEnd())
                .int8OrNull("control_exchange_us", r -> r.getSetup().getControlExchangeUs())
                .int8OrNull("client_reset_us", r -> r.getTimelineUs().getClientReset())
                .int8OrNull("server_reset_us", r -> r.getTimelineUs().getServerReset())
                .int8OrNull("first_tls_us", r -> r.getTimelineUs().getFirstTls())
                .int8OrNull("last_server_control_us", r -> r.getTimelineUs().getLastServerControl())
                .int8OrNull("first_data_us", r -> r.getTimelineUs().getFirstData())
                .text("wire_transport", r -> r.getWire().getTransport())
                .textOrNull("wire_wrapping", r -> r.getWire().getWrapping())
                .int4("wire_tls_auth_hmac_bytes", r -> r.getWire().getTlsAuthHmacBytes())
                .bool("wire_detected", r -> r.getWire().getDetected());
        direction(b, "c2s_", OpenVpnSessionRecord::getC2s);
        return direction(b, "s2c_", OpenVpnSessionRecord::getS2c).updateAll();
    }

    /** One direction's columns, named PREFIX + the direction's field. */
    private static Upsert.Builder<OpenVpnSessionRecord> direction(
            Upsert.Builder<OpenVpnSessionRecord> b,
            String prefix,
            Upsert.Get<OpenVpnSessionRecord, OpenVpnDirection> d) {
        return b.int8(prefix + "control_packets", r -> d.of(r).getControlPackets())
                .int8(prefix + "ack_only_packets", r -> d.of(r).getAckOnlyPackets())
                .int8(prefix + "data_packets", r -> d.of(r).getDataPackets())
                .int8(prefix + "opaque_packets", r -> d.of(r).getOpaquePackets())
                .int8(prefix + "control_payload_bytes", r -> d.of(r).getControlPayloadBytes())
                .int8(prefix + "retransmits", r -> d.of(r).getRetransmits())
                .int8(
                        prefix + "retransmits_timeout",
                        r -> d.of(r).getRetransmitsByCause().getTimeout())
                .int8(
                        prefix + "retransmits_early",
                        r -> d.of(r).getRetransmitsByCause().getEarlyAfterLaterAcks())
                .int8(
                        prefix + "retransmits_reset_answer",
                        r -> d.of(r).getRetransmitsByCause().getResetAnswer())
                .int8(prefix + "duplicates", r -> d.of(r).getDuplicates())
                .int8(prefix + "late_first_copies", r -> d.of(r).getLateFirstCopies())
                .int8(prefix + "tcp_retransmits", r -> d.of(r).getTcpRetransmits())
                .int8Array(prefix + "retransmit_gaps_us", r -> d.of(r).getRetransmitGapsUs())
                .int8Array(
                        prefix + "backoff_timeout_gaps_us",
                        r -> d.of(r).getBackoff().getTimeoutGapsUs())
                .float8OrNull(
                        prefix + "backoff_initial_us", r -> d.of(r).getBackoff().getInitialUs())
                .float8OrNull(
                        prefix + "backoff_ratio", r -> d.of(r).getBackoff().getRatio())
                .int8(
                        prefix + "ack_latency_samples",
                        r -> d.of(r).getAckLatencyUs().getSamples())
                .int8OrNull(
                        prefix + "ack_latency_min_us",
                        r -> d.of(r).getAckLatencyUs().getMin())
                .int8OrNull(
                        prefix + "ack_latency_avg_us",
                        r -> d.of(r).getAckLatencyUs().getAvg())
                .int8OrNull(
                        prefix + "ack_latency_max_us",
                        r -> d.of(r).getAckLatencyUs().getMax());
    }

    static final Upsert<OpenVpnServerWindow> SERVER_WINDOWS = Upsert.<OpenVpnServerWindow>into(
                    "openvpn_server_windows", "vantage", "server", "window_size_ms", "window_start")
            .text("vantage", w -> PacketEvents.vantage(w.getVantage()))
            .text("server", OpenVpnServerWindow::getServer)
            .int8("window_size_ms", OpenVpnServerWindow::getWindowSizeMs)
            .millis("window_start", OpenVpnServerWindow::getWindowStartMs)
            .millis("window_end", OpenVpnServerWindow::getWindowEndMs)
            .int8("sessions", OpenVpnServerWindow::getSessions)
            .int8("completed", OpenVpnServerWindow::getCompleted)
            .float8OrNull("setup_mean_us", w -> w.getSetupUs().getMean())
            .float8OrNull("setup_sd_us", w -> w.getSetupUs().getSd())
            .float8OrNull("setup_p50_us", w -> w.getSetupUs().getP50())
            .float8OrNull("setup_p90_us", w -> w.getSetupUs().getP90())
            .float8OrNull("setup_p99_us", w -> w.getSetupUs().getP99())
            .int8("server_retransmits", OpenVpnServerWindow::getServerRetransmits)
            .int8("client_retransmits", OpenVpnServerWindow::getClientRetransmits)
            .int8("synchronised_retries", OpenVpnServerWindow::getSynchronisedRetries)
            .updateAll();
}
