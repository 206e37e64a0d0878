package io.flowtrace.jobs.sink;

import io.flowtrace.avro.OpenVpnDirection;
import io.flowtrace.avro.OpenVpnServerWindow;
import io.flowtrace.avro.OpenVpnSessionRecord;
import io.flowtrace.avro.OpenVpnSetupStats;
import io.flowtrace.avro.mapping.PacketEvents;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.connector.jdbc.JdbcStatementBuilder;

/**
 * Idempotent upserts of the OpenVPN sink tables (deploy/sql/V8__openvpn.sql): one row per session
 * in {@code openvpn_sessions}, one per server and window in {@code openvpn_server_windows}. The
 * statement text is built from the column lists, so a column is named once here.
 */
final class OpenVpnRows {
    private static final List<String> DIRECTION_COLUMNS = List.of(
            "control_packets",
            "ack_only_packets",
            "data_packets",
            "opaque_packets",
            "control_payload_bytes",
            "retransmits",
            "retransmits_timeout",
            "retransmits_early",
            "retransmits_reset_answer",
            "duplicates",
            "late_first_copies",
            "retransmit_gaps_us",
            "backoff_timeout_gaps_us",
            "backoff_initial_us",
            "backoff_ratio",
            "ack_latency_samples",
            "ack_latency_min_us",
            "ack_latency_avg_us",
            "ack_latency_max_us");

    static final String SESSIONS =
            upsert("openvpn_sessions", List.of("vantage", "client", "server", "first_seen_us"), sessionColumns());
    static final String SERVER_WINDOWS = upsert(
            "openvpn_server_windows",
            List.of("vantage", "server", "window_size_ms", "window_start"),
            List.of(
                    "window_end",
                    "sessions",
                    "completed",
                    "setup_mean_us",
                    "setup_sd_us",
                    "setup_p50_us",
                    "setup_p90_us",
                    "setup_p99_us",
                    "server_retransmits",
                    "client_retransmits",
                    "synchronised_retries"));

    private OpenVpnRows() {}

    private static List<String> sessionColumns() {
        List<String> c = new ArrayList<>(List.of(
                "first_seen",
                "last_seen_us",
                "last_seen",
                "client_id",
                "server_id",
                "setup_completed",
                "setup_us",
                "setup_end",
                "control_exchange_us",
                "client_reset_us",
                "server_reset_us",
                "first_tls_us",
                "last_server_control_us",
                "first_data_us"));
        for (String d : List.of("c2s_", "s2c_")) {
            for (String column : DIRECTION_COLUMNS) {
                c.add(d + column);
            }
        }
        return c;
    }

    static String upsert(String table, List<String> keys, List<String> columns) {
        List<String> all = new ArrayList<>(keys);
        all.addAll(columns);
        StringBuilder sql = new StringBuilder("INSERT INTO ")
                .append(table)
                .append(" (")
                .append(String.join(", ", all))
                .append(") VALUES (")
                .append("?, ".repeat(all.size() - 1))
                .append("?) ON CONFLICT (")
                .append(String.join(", ", keys))
                .append(") DO UPDATE SET ");
        for (int i = 0; i < columns.size(); i++) {
            sql.append(i == 0 ? "" : ", ")
                    .append(columns.get(i))
                    .append(" = EXCLUDED.")
                    .append(columns.get(i));
        }
        return sql.toString();
    }

    static final class SessionRow implements JdbcStatementBuilder<OpenVpnSessionRecord> {
        private static final long serialVersionUID = 1L;

        @Override
        public void accept(PreparedStatement st, OpenVpnSessionRecord r) throws SQLException {
            int i = 0;
            st.setString(++i, PacketEvents.vantage(r.getVantage()));
            st.setString(++i, r.getClient());
            st.setString(++i, r.getServer());
            st.setLong(++i, r.getFirstSeenUs());
            st.setObject(++i, Upsert.fromMicros(r.getFirstSeenUs()));
            st.setLong(++i, r.getLastSeenUs());
            st.setObject(++i, Upsert.fromMicros(r.getLastSeenUs()));
            st.setString(++i, r.getClientId());
            st.setString(++i, r.getServerId());
            st.setBoolean(++i, r.getSetup().getCompleted());
            Upsert.setNullableLong(st, ++i, r.getSetup().getSetupUs());
            st.setString(++i, r.getSetup().getEnd());
            Upsert.setNullableLong(st, ++i, r.getSetup().getControlExchangeUs());
            Upsert.setNullableLong(st, ++i, r.getTimelineUs().getClientReset());
            Upsert.setNullableLong(st, ++i, r.getTimelineUs().getServerReset());
            Upsert.setNullableLong(st, ++i, r.getTimelineUs().getFirstTls());
            Upsert.setNullableLong(st, ++i, r.getTimelineUs().getLastServerControl());
            Upsert.setNullableLong(st, ++i, r.getTimelineUs().getFirstData());
            i = direction(st, i, r.getC2s());
            direction(st, i, r.getS2c());
        }

        /** The columns of {@link #DIRECTION_COLUMNS} in order; returns the last index. */
        private static int direction(PreparedStatement st, int i, OpenVpnDirection d) throws SQLException {
            st.setLong(++i, d.getControlPackets());
            st.setLong(++i, d.getAckOnlyPackets());
            st.setLong(++i, d.getDataPackets());
            st.setLong(++i, d.getOpaquePackets());
            st.setLong(++i, d.getControlPayloadBytes());
            st.setLong(++i, d.getRetransmits());
            st.setLong(++i, d.getRetransmitsByCause().getTimeout());
            st.setLong(++i, d.getRetransmitsByCause().getEarlyAfterLaterAcks());
            st.setLong(++i, d.getRetransmitsByCause().getResetAnswer());
            st.setLong(++i, d.getDuplicates());
            st.setLong(++i, d.getLateFirstCopies());
            st.setArray(
                    ++i,
                    st.getConnection()
                            .createArrayOf("bigint", d.getRetransmitGapsUs().toArray()));
            st.setArray(
                    ++i,
                    st.getConnection()
                            .createArrayOf(
                                    "bigint", d.getBackoff().getTimeoutGapsUs().toArray()));
            Upsert.setNullableDouble(st, ++i, d.getBackoff().getInitialUs());
            Upsert.setNullableDouble(st, ++i, d.getBackoff().getRatio());
            st.setLong(++i, d.getAckLatencyUs().getSamples());
            Upsert.setNullableLong(st, ++i, d.getAckLatencyUs().getMin());
            Upsert.setNullableLong(st, ++i, d.getAckLatencyUs().getAvg());
            Upsert.setNullableLong(st, ++i, d.getAckLatencyUs().getMax());
            return i;
        }
    }

    static final class ServerWindowRow implements JdbcStatementBuilder<OpenVpnServerWindow> {
        private static final long serialVersionUID = 1L;

        @Override
        public void accept(PreparedStatement st, OpenVpnServerWindow w) throws SQLException {
            OpenVpnSetupStats setup = w.getSetupUs();
            int i = 0;
            st.setString(++i, PacketEvents.vantage(w.getVantage()));
            st.setString(++i, w.getServer());
            st.setLong(++i, w.getWindowSizeMs());
            st.setObject(++i, Upsert.fromMillis(w.getWindowStartMs()));
            st.setObject(++i, Upsert.fromMillis(w.getWindowEndMs()));
            st.setLong(++i, w.getSessions());
            st.setLong(++i, w.getCompleted());
            Upsert.setNullableDouble(st, ++i, setup.getMean());
            Upsert.setNullableDouble(st, ++i, setup.getSd());
            Upsert.setNullableDouble(st, ++i, setup.getP50());
            Upsert.setNullableDouble(st, ++i, setup.getP90());
            Upsert.setNullableDouble(st, ++i, setup.getP99());
            st.setLong(++i, w.getServerRetransmits());
            st.setLong(++i, w.getClientRetransmits());
            st.setLong(++i, w.getSynchronisedRetries());
        }
    }
}
