package io.flowtrace.jobs.sink;

import io.flowtrace.avro.ConntrackBudget;
import io.flowtrace.avro.DeadLetter;
import io.flowtrace.avro.DirectionStats;
import io.flowtrace.avro.Distribution;
import io.flowtrace.avro.FlowRecord;
import io.flowtrace.avro.RetransmitCounts;
import io.flowtrace.avro.ServiceWindow;
import io.flowtrace.avro.TcpEvent;
import io.flowtrace.avro.VantageWindow;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.jobs.conntrack.BudgetWindow;
import io.flowtrace.jobs.flow.FlowSummary;
import io.flowtrace.jobs.join.FlowConntrack;
import java.nio.ByteBuffer;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import org.apache.flink.connector.jdbc.JdbcStatementBuilder;

/**
 * The upsert statements of the sink tables (deploy/sql/, migrations.list) and how each record
 * fills them. Every statement is an idempotent upsert on the table's stable key, so a replay after
 * a failure rewrites the same rows; flow rows only move forward in record time, so a replayed
 * older version of a flow never overwrites a newer one.
 */
public final class PostgresRows {
    private PostgresRows() {
    }

    static final String FLOW_SUMMARY = """
            INSERT INTO flow_summary (vantage, client, server, instance, client_guessed, first_seen, last_seen,
                end_state, final, setup_us, handshake_rtt_us, syn_retransmits, c2s_packets, s2c_packets,
                c2s_data_bytes, s2c_data_bytes, c2s_unique_bytes, s2c_unique_bytes, c2s_retransmitted_packets,
                s2c_retransmitted_packets, retransmits_rto, retransmits_fast, retransmits_spurious, retransmits_tlp,
                retransmits_other, c2s_rtt_avg_us, s2c_rtt_avg_us, c2s_throughput_bps, s2c_throughput_bps,
                late_packets, record_time_us, report)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb)
            ON CONFLICT (vantage, client, server, instance) DO UPDATE SET
                client_guessed = EXCLUDED.client_guessed, first_seen = EXCLUDED.first_seen,
                last_seen = EXCLUDED.last_seen, end_state = EXCLUDED.end_state, final = EXCLUDED.final,
                setup_us = EXCLUDED.setup_us, handshake_rtt_us = EXCLUDED.handshake_rtt_us,
                syn_retransmits = EXCLUDED.syn_retransmits, c2s_packets = EXCLUDED.c2s_packets,
                s2c_packets = EXCLUDED.s2c_packets, c2s_data_bytes = EXCLUDED.c2s_data_bytes,
                s2c_data_bytes = EXCLUDED.s2c_data_bytes, c2s_unique_bytes = EXCLUDED.c2s_unique_bytes,
                s2c_unique_bytes = EXCLUDED.s2c_unique_bytes,
                c2s_retransmitted_packets = EXCLUDED.c2s_retransmitted_packets,
                s2c_retransmitted_packets = EXCLUDED.s2c_retransmitted_packets,
                retransmits_rto = EXCLUDED.retransmits_rto, retransmits_fast = EXCLUDED.retransmits_fast,
                retransmits_spurious = EXCLUDED.retransmits_spurious, retransmits_tlp = EXCLUDED.retransmits_tlp,
                retransmits_other = EXCLUDED.retransmits_other, c2s_rtt_avg_us = EXCLUDED.c2s_rtt_avg_us,
                s2c_rtt_avg_us = EXCLUDED.s2c_rtt_avg_us, c2s_throughput_bps = EXCLUDED.c2s_throughput_bps,
                s2c_throughput_bps = EXCLUDED.s2c_throughput_bps, late_packets = EXCLUDED.late_packets,
                record_time_us = EXCLUDED.record_time_us, report = EXCLUDED.report
            WHERE flow_summary.record_time_us <= EXCLUDED.record_time_us
            """;

    static final String TCP_EVENTS = """
            INSERT INTO tcp_events (vantage, client, server, instance, event_index, event_time, kind, direction,
                retransmit_class, seq, bytes, since_original_us, retries)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (vantage, client, server, instance, event_index) DO UPDATE SET
                event_time = EXCLUDED.event_time, kind = EXCLUDED.kind, direction = EXCLUDED.direction,
                retransmit_class = EXCLUDED.retransmit_class, seq = EXCLUDED.seq, bytes = EXCLUDED.bytes,
                since_original_us = EXCLUDED.since_original_us, retries = EXCLUDED.retries
            """;

    static final String SERVICE_WINDOWS = """
            INSERT INTO service_windows (vantage, service, window_size_ms, window_start, window_end, connections,
                completed_handshakes, setup_count, setup_mean_us, setup_sd_us, setup_p50_us, setup_p90_us,
                setup_p99_us, syn_retransmits, synack_retransmits, data_packets, data_bytes, retransmitted_packets,
                retransmits_rto, retransmits_fast, retransmits_spurious, retransmits_tlp, retransmits_other,
                retransmit_rate, rtt_count, rtt_p50_us, rtt_p90_us, rtt_p99_us, throughput_bps,
                slow_start_exits, slow_start_exit_cwnd_p50, slow_start_exit_cwnd_p90, slow_start_premature,
                slow_start_premature_share)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (vantage, service, window_size_ms, window_start) DO UPDATE SET
                window_end = EXCLUDED.window_end, connections = EXCLUDED.connections,
                completed_handshakes = EXCLUDED.completed_handshakes, setup_count = EXCLUDED.setup_count,
                setup_mean_us = EXCLUDED.setup_mean_us, setup_sd_us = EXCLUDED.setup_sd_us,
                setup_p50_us = EXCLUDED.setup_p50_us, setup_p90_us = EXCLUDED.setup_p90_us,
                setup_p99_us = EXCLUDED.setup_p99_us, syn_retransmits = EXCLUDED.syn_retransmits,
                synack_retransmits = EXCLUDED.synack_retransmits, data_packets = EXCLUDED.data_packets,
                data_bytes = EXCLUDED.data_bytes, retransmitted_packets = EXCLUDED.retransmitted_packets,
                retransmits_rto = EXCLUDED.retransmits_rto, retransmits_fast = EXCLUDED.retransmits_fast,
                retransmits_spurious = EXCLUDED.retransmits_spurious, retransmits_tlp = EXCLUDED.retransmits_tlp,
                retransmits_other = EXCLUDED.retransmits_other, retransmit_rate = EXCLUDED.retransmit_rate,
                rtt_count = EXCLUDED.rtt_count, rtt_p50_us = EXCLUDED.rtt_p50_us, rtt_p90_us = EXCLUDED.rtt_p90_us,
                rtt_p99_us = EXCLUDED.rtt_p99_us, throughput_bps = EXCLUDED.throughput_bps,
                slow_start_exits = EXCLUDED.slow_start_exits, slow_start_exit_cwnd_p50 = EXCLUDED.slow_start_exit_cwnd_p50,
                slow_start_exit_cwnd_p90 = EXCLUDED.slow_start_exit_cwnd_p90,
                slow_start_premature = EXCLUDED.slow_start_premature,
                slow_start_premature_share = EXCLUDED.slow_start_premature_share
            """;

    static final String VANTAGE_WINDOWS = """
            INSERT INTO vantage_windows (vantage, window_size_ms, window_start, window_end, flows_ended, packets,
                late_packets, data_packets, retransmitted_packets, retransmits_rto, retransmits_fast,
                retransmits_spurious, retransmits_tlp, retransmits_other, rtt_p50_us, rtt_p90_us, rtt_p99_us,
                throughput_bps)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (vantage, window_size_ms, window_start) DO UPDATE SET
                window_end = EXCLUDED.window_end, flows_ended = EXCLUDED.flows_ended, packets = EXCLUDED.packets,
                late_packets = EXCLUDED.late_packets, data_packets = EXCLUDED.data_packets,
                retransmitted_packets = EXCLUDED.retransmitted_packets, retransmits_rto = EXCLUDED.retransmits_rto,
                retransmits_fast = EXCLUDED.retransmits_fast, retransmits_spurious = EXCLUDED.retransmits_spurious,
                retransmits_tlp = EXCLUDED.retransmits_tlp, retransmits_other = EXCLUDED.retransmits_other,
                rtt_p50_us = EXCLUDED.rtt_p50_us, rtt_p90_us = EXCLUDED.rtt_p90_us, rtt_p99_us = EXCLUDED.rtt_p99_us,
                throughput_bps = EXCLUDED.throughput_bps
            """;

    static final String DEAD_LETTERS = """
            INSERT INTO dead_letters (topic, kafka_partition, kafka_offset, kafka_timestamp, stage, reason,
                error_class, schema_fingerprint, record_key, raw, job_time)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (topic, kafka_partition, kafka_offset) DO NOTHING
            """;

    static final String CONNTRACK_BUDGETS = """
            INSERT INTO conntrack_budgets (vantage, window_size_ms, window_start, window_end, events, events_per_second,
                exact_bytes, estimated_bytes, truesize_bytes, waste_ratio, peak_burst_10ms, peak_burst_100ms,
                buffer_needed_bytes, buffer_configured_bytes, enobufs_predicted, enobufs_observed, events_new,
                events_update, events_destroy, exact_bytes_per_second, truesize_bytes_per_second, size_min, size_mean,
                size_p50, size_p90, size_p99, size_max, drain_latency_ms, buffer_effective_bytes, buffer_utilisation,
                predicted_drops, enobufs_risk)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (vantage, window_size_ms, window_start) DO UPDATE SET
                window_end = EXCLUDED.window_end, events = EXCLUDED.events,
                events_per_second = EXCLUDED.events_per_second, exact_bytes = EXCLUDED.exact_bytes,
                estimated_bytes = EXCLUDED.estimated_bytes, truesize_bytes = EXCLUDED.truesize_bytes,
                waste_ratio = EXCLUDED.waste_ratio, peak_burst_10ms = EXCLUDED.peak_burst_10ms,
                peak_burst_100ms = EXCLUDED.peak_burst_100ms, buffer_needed_bytes = EXCLUDED.buffer_needed_bytes,
                buffer_configured_bytes = EXCLUDED.buffer_configured_bytes,
                enobufs_predicted = EXCLUDED.enobufs_predicted, enobufs_observed = EXCLUDED.enobufs_observed,
                events_new = EXCLUDED.events_new, events_update = EXCLUDED.events_update,
                events_destroy = EXCLUDED.events_destroy, exact_bytes_per_second = EXCLUDED.exact_bytes_per_second,
                truesize_bytes_per_second = EXCLUDED.truesize_bytes_per_second, size_min = EXCLUDED.size_min,
                size_mean = EXCLUDED.size_mean, size_p50 = EXCLUDED.size_p50, size_p90 = EXCLUDED.size_p90,
                size_p99 = EXCLUDED.size_p99, size_max = EXCLUDED.size_max,
                drain_latency_ms = EXCLUDED.drain_latency_ms, buffer_effective_bytes = EXCLUDED.buffer_effective_bytes,
                buffer_utilisation = EXCLUDED.buffer_utilisation, predicted_drops = EXCLUDED.predicted_drops,
                enobufs_risk = EXCLUDED.enobufs_risk
            """;

    static final String FLOW_CONNTRACK = """
            INSERT INTO flow_conntrack (vantage, client, server, instance, ct_vantage, ct_id, tuple_side, nat,
                pre_nat_client, pre_nat_server, post_nat_client, post_nat_server, ct_status, ct_tcp_state, ct_start,
                ct_stop, ct_start_ns, ct_stop_ns, ct_destroyed, ct_c2s_packets, ct_c2s_bytes, ct_s2c_packets,
                ct_s2c_bytes, captured_c2s_packets, captured_s2c_packets, c2s_missing_packets, s2c_missing_packets,
                flow_final, join_time_us)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (vantage, client, server, instance) DO UPDATE SET
                ct_vantage = EXCLUDED.ct_vantage, ct_id = EXCLUDED.ct_id, tuple_side = EXCLUDED.tuple_side,
                nat = EXCLUDED.nat, pre_nat_client = EXCLUDED.pre_nat_client, pre_nat_server = EXCLUDED.pre_nat_server,
                post_nat_client = EXCLUDED.post_nat_client, post_nat_server = EXCLUDED.post_nat_server,
                ct_status = EXCLUDED.ct_status, ct_tcp_state = EXCLUDED.ct_tcp_state, ct_start = EXCLUDED.ct_start,
                ct_stop = EXCLUDED.ct_stop, ct_start_ns = EXCLUDED.ct_start_ns, ct_stop_ns = EXCLUDED.ct_stop_ns,
                ct_destroyed = EXCLUDED.ct_destroyed, ct_c2s_packets = EXCLUDED.ct_c2s_packets,
                ct_c2s_bytes = EXCLUDED.ct_c2s_bytes, ct_s2c_packets = EXCLUDED.ct_s2c_packets,
                ct_s2c_bytes = EXCLUDED.ct_s2c_bytes, captured_c2s_packets = EXCLUDED.captured_c2s_packets,
                captured_s2c_packets = EXCLUDED.captured_s2c_packets,
                c2s_missing_packets = EXCLUDED.c2s_missing_packets, s2c_missing_packets = EXCLUDED.s2c_missing_packets,
                flow_final = EXCLUDED.flow_final, join_time_us = EXCLUDED.join_time_us
            WHERE flow_conntrack.join_time_us <= EXCLUDED.join_time_us
            """;

    static final class FlowConntrackRow implements JdbcStatementBuilder<FlowConntrack> {
        private static final long serialVersionUID = 1L;

        @Override
        public void accept(PreparedStatement st, FlowConntrack r) throws SQLException {
            int i = 0;
            st.setString(++i, r.vantage);
            st.setString(++i, r.client);
            st.setString(++i, r.server);
            st.setLong(++i, r.instance);
            st.setString(++i, r.ctVantage);
            setNullableLong(st, ++i, r.ctId >= 0 ? r.ctId : null);
            st.setString(++i, r.tupleSide);
            st.setString(++i, r.nat);
            st.setString(++i, r.preNatClient);
            st.setString(++i, r.preNatServer);
            st.setString(++i, r.postNatClient);
            st.setString(++i, r.postNatServer);
            st.setLong(++i, r.ctStatus);
            if (r.ctTcpState >= 0) {
                st.setInt(++i, r.ctTcpState);
            } else {
                st.setNull(++i, Types.INTEGER);
            }
            st.setObject(++i, r.ctStartNs >= 0 ? fromNanos(r.ctStartNs) : null);
            st.setObject(++i, r.ctStopNs >= 0 ? fromNanos(r.ctStopNs) : null);
            setNullableLong(st, ++i, r.ctStartNs >= 0 ? r.ctStartNs : null);
            setNullableLong(st, ++i, r.ctStopNs >= 0 ? r.ctStopNs : null);
            st.setBoolean(++i, r.ctDestroyed);
            setNullableLong(st, ++i, r.ctC2sPackets >= 0 ? r.ctC2sPackets : null);
            setNullableLong(st, ++i, r.ctC2sBytes >= 0 ? r.ctC2sBytes : null);
            setNullableLong(st, ++i, r.ctS2cPackets >= 0 ? r.ctS2cPackets : null);
            setNullableLong(st, ++i, r.ctS2cBytes >= 0 ? r.ctS2cBytes : null);
            st.setLong(++i, r.capturedC2sPackets);
            st.setLong(++i, r.capturedS2cPackets);
            setNullableLong(st, ++i, r.c2sMissingPackets);
            setNullableLong(st, ++i, r.s2cMissingPackets);
            st.setBoolean(++i, r.flowFinal);
            st.setLong(++i, r.joinTimeUs);
        }
    }

    static final class FlowSummaryRow implements JdbcStatementBuilder<FlowSummary> {
        private static final long serialVersionUID = 1L;

        @Override
        public void accept(PreparedStatement st, FlowSummary s) throws SQLException {
            FlowRecord r = s.record;
            DirectionStats c2s = r.getC2s();
            DirectionStats s2c = r.getS2c();
            int i = 0;
            st.setString(++i, PacketEvents.vantage(r.getFlow().getVantage()));
            st.setString(++i, r.getFlow().getClient());
            st.setString(++i, r.getFlow().getServer());
            st.setLong(++i, r.getFlow().getInstance());
            st.setBoolean(++i, r.getFlow().getClientGuessed());
            st.setObject(++i, fromMicros(r.getFirstSeenUs()));
            st.setObject(++i, fromMicros(r.getLastSeenUs()));
            st.setString(++i, r.getEnd().name().toLowerCase(java.util.Locale.ROOT));
            st.setBoolean(++i, s.finalRecord);
            setNullableDouble(st, ++i, r.getSetup().getSetupUs() == null ? null : r.getSetup().getSetupUs().doubleValue());
            setNullableDouble(st, ++i,
                    r.getSetup().getHandshakeRttUs() == null ? null : r.getSetup().getHandshakeRttUs().doubleValue());
            st.setInt(++i, r.getSetup().getSynRetransmits());
            st.setLong(++i, c2s.getPackets());
            st.setLong(++i, s2c.getPackets());
            st.setLong(++i, c2s.getDataBytes());
            st.setLong(++i, s2c.getDataBytes());
            st.setLong(++i, c2s.getUniqueBytes());
            st.setLong(++i, s2c.getUniqueBytes());
            st.setLong(++i, c2s.getRetransmittedPackets());
            st.setLong(++i, s2c.getRetransmittedPackets());
            st.setLong(++i, c2s.getRetransmits().getRto() + s2c.getRetransmits().getRto());
            st.setLong(++i, c2s.getRetransmits().getFast() + s2c.getRetransmits().getFast());
            st.setLong(++i, c2s.getRetransmits().getSpurious() + s2c.getRetransmits().getSpurious());
            st.setLong(++i, c2s.getRetransmits().getTlp() + s2c.getRetransmits().getTlp());
            st.setLong(++i, c2s.getRetransmits().getOther() + s2c.getRetransmits().getOther());
            setNullableDouble(st, ++i, c2s.getRttUs().getAvg());
            setNullableDouble(st, ++i, s2c.getRttUs().getAvg());
            st.setDouble(++i, c2s.getThroughputBps());
            st.setDouble(++i, s2c.getThroughputBps());
            st.setLong(++i, s.latePackets);
            st.setLong(++i, r.getRecordTimeUs());
            st.setString(++i, s.reportJson);
        }
    }

    static final class TcpEventRow implements JdbcStatementBuilder<TcpEvent> {
        private static final long serialVersionUID = 1L;

        @Override
        public void accept(PreparedStatement st, TcpEvent e) throws SQLException {
            int i = 0;
            st.setString(++i, PacketEvents.vantage(e.getFlow().getVantage()));
            st.setString(++i, e.getFlow().getClient());
            st.setString(++i, e.getFlow().getServer());
            st.setLong(++i, e.getFlow().getInstance());
            st.setLong(++i, e.getIndex());
            st.setObject(++i, fromMicros(e.getTimeUs()));
            st.setString(++i, e.getKind().name());
            st.setString(++i, e.getDirection().name());
            st.setString(++i, e.getRetransmitClass() == null ? null : e.getRetransmitClass().name());
            setNullableLong(st, ++i, e.getSeq());
            setNullableLong(st, ++i, e.getBytes());
            setNullableLong(st, ++i, e.getSinceOriginalUs());
            setNullableLong(st, ++i, e.getRetries() == null ? null : e.getRetries().longValue());
        }
    }

    static final class ServiceWindowRow implements JdbcStatementBuilder<ServiceWindow> {
        private static final long serialVersionUID = 1L;

        @Override
        public void accept(PreparedStatement st, ServiceWindow w) throws SQLException {
            Distribution setup = w.getSetupUs();
            Distribution rtt = w.getRttUs();
            int i = 0;
            st.setString(++i, PacketEvents.vantage(w.getVantage()));
            st.setString(++i, w.getService());
            st.setLong(++i, w.getWindowSizeMs());
            st.setObject(++i, fromMillis(w.getWindowStartMs()));
            st.setObject(++i, fromMillis(w.getWindowEndMs()));
            st.setLong(++i, w.getConnections());
            st.setLong(++i, w.getCompletedHandshakes());
            st.setLong(++i, setup.getCount());
            setNullableDouble(st, ++i, setup.getMean());
            setNullableDouble(st, ++i, setup.getSd());
            i = setPercentiles(st, i, setup);
            st.setLong(++i, w.getSynRetransmits());
            st.setLong(++i, w.getSynackRetransmits());
            st.setLong(++i, w.getDataPackets());
            st.setLong(++i, w.getDataBytes());
            st.setLong(++i, w.getRetransmittedPackets());
            i = setRetransmits(st, i, w.getRetransmits());
            setNullableDouble(st, ++i, w.getRetransmitRate());
            st.setLong(++i, rtt.getCount());
            i = setPercentiles(st, i, rtt);
            st.setDouble(++i, w.getThroughputBps());
            Distribution exits = w.getSlowStartExitCwndSegments();
            st.setLong(++i, exits.getCount());
            setNullableDouble(st, ++i, exits.getP50());
            setNullableDouble(st, ++i, exits.getP90());
            st.setLong(++i, w.getSlowStartPremature());
            setNullableDouble(st, ++i, w.getSlowStartPrematureShare());
        }
    }

    /** The five retransmission classes in contract order (rto, fast, spurious, tlp, other); returns the last index. */
    private static int setRetransmits(PreparedStatement st, int i, RetransmitCounts c) throws SQLException {
        st.setLong(++i, c.getRto());
        st.setLong(++i, c.getFast());
        st.setLong(++i, c.getSpurious());
        st.setLong(++i, c.getTlp());
        st.setLong(++i, c.getOther());
        return i;
    }

    /** p50, p90, p99 of a distribution (null when empty); returns the last index. */
    private static int setPercentiles(PreparedStatement st, int i, Distribution d) throws SQLException {
        setNullableDouble(st, ++i, d.getP50());
        setNullableDouble(st, ++i, d.getP90());
        setNullableDouble(st, ++i, d.getP99());
        return i;
    }

    static final class VantageWindowRow implements JdbcStatementBuilder<VantageWindow> {
        private static final long serialVersionUID = 1L;

        @Override
        public void accept(PreparedStatement st, VantageWindow w) throws SQLException {
            Distribution rtt = w.getRttUs();
            int i = 0;
            st.setString(++i, PacketEvents.vantage(w.getVantage()));
            st.setLong(++i, w.getWindowSizeMs());
            st.setObject(++i, fromMillis(w.getWindowStartMs()));
            st.setObject(++i, fromMillis(w.getWindowEndMs()));
            st.setLong(++i, w.getFlowsEnded());
            st.setLong(++i, w.getPackets());
            st.setLong(++i, w.getLatePackets());
            st.setLong(++i, w.getDataPackets());
            st.setLong(++i, w.getRetransmittedPackets());
            i = setRetransmits(st, i, w.getRetransmits());
            i = setPercentiles(st, i, rtt);
            st.setDouble(++i, w.getThroughputBps());
        }
    }

    static final class DeadLetterRow implements JdbcStatementBuilder<DeadLetter> {
        private static final long serialVersionUID = 1L;

        @Override
        public void accept(PreparedStatement st, DeadLetter d) throws SQLException {
            int i = 0;
            st.setString(++i, d.getTopic());
            st.setInt(++i, d.getPartition());
            st.setLong(++i, d.getOffset());
            st.setObject(++i, fromMillis(d.getTimestampMs()));
            st.setString(++i, d.getStage().name());
            st.setString(++i, d.getReason());
            st.setString(++i, d.getErrorClass());
            setNullableLong(st, ++i, d.getSchemaFingerprint());
            st.setBytes(++i, d.getKey() == null ? null : bytes(d.getKey()));
            st.setBytes(++i, bytes(d.getRaw()));
            st.setObject(++i, fromMillis(d.getJobTimeMs()));
        }
    }

    static final class ConntrackBudgetRow implements JdbcStatementBuilder<BudgetWindow> {
        private static final long serialVersionUID = 1L;

        @Override
        public void accept(PreparedStatement st, BudgetWindow b) throws SQLException {
            ConntrackBudget w = b.record;
            Distribution size = w.getMessageSizeBytes();
            int i = 0;
            st.setString(++i, PacketEvents.vantage(w.getVantage()));
            st.setLong(++i, w.getWindowSizeMs());
            st.setObject(++i, fromMillis(w.getWindowStartMs()));
            st.setObject(++i, fromMillis(w.getWindowEndMs()));
            st.setLong(++i, w.getEventsNew() + w.getEventsUpdate() + w.getEventsDestroy());
            st.setDouble(++i, w.getEventsPerS());
            st.setLong(++i, w.getMessageBytes());
            st.setLong(++i, w.getEstimatedBytes());
            st.setLong(++i, w.getTruesizeBytes());
            setNullableDouble(st, ++i, w.getWasteRatio());
            st.setLong(++i, w.getPeakBurst10msBytes());
            st.setLong(++i, w.getPeakBurst100msBytes());
            st.setLong(++i, w.getBufferNeededBytes());
            st.setLong(++i, w.getConfiguredBufferBytes());
            st.setLong(++i, b.predictedEnobufs);
            setNullableLong(st, ++i, w.getEnobufsObserved());
            st.setLong(++i, w.getEventsNew());
            st.setLong(++i, w.getEventsUpdate());
            st.setLong(++i, w.getEventsDestroy());
            st.setDouble(++i, w.getMessageBytesPerS());
            st.setDouble(++i, w.getTruesizeBytesPerS());
            setNullableDouble(st, ++i, size.getMin());
            setNullableDouble(st, ++i, size.getMean());
            setNullableDouble(st, ++i, size.getP50());
            setNullableDouble(st, ++i, size.getP90());
            setNullableDouble(st, ++i, size.getP99());
            setNullableDouble(st, ++i, size.getMax());
            st.setDouble(++i, w.getDrainLatencyMs());
            st.setLong(++i, b.effectiveRcvbuf);
            setNullableDouble(st, ++i, w.getBufferUtilisation());
            st.setLong(++i, b.predictedDrops);
            st.setString(++i, b.risk);
        }
    }

    static OffsetDateTime fromMicros(long micros) {
        return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000L).atOffset(ZoneOffset.UTC);
    }

    private static OffsetDateTime fromNanos(long nanos) {
        return Instant.ofEpochSecond(Math.floorDiv(nanos, 1_000_000_000L), Math.floorMod(nanos, 1_000_000_000L))
                .atOffset(ZoneOffset.UTC);
    }

    static OffsetDateTime fromMillis(long millis) {
        return Instant.ofEpochMilli(millis).atOffset(ZoneOffset.UTC);
    }

    private static byte[] bytes(ByteBuffer buffer) {
        ByteBuffer b = buffer.duplicate();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    static void setNullableDouble(PreparedStatement st, int i, Double v) throws SQLException {
        if (v == null) {
            st.setNull(i, Types.DOUBLE);
        } else {
            st.setDouble(i, v);
        }
    }

    static void setNullableLong(PreparedStatement st, int i, Long v) throws SQLException {
        if (v == null) {
            st.setNull(i, Types.BIGINT);
        } else {
            st.setLong(i, v);
        }
    }
}
