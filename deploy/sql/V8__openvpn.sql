-- flowtrace sink schema, version 8: OpenVPN sessions and per-server windows (docs/metrics.md,
-- "OpenVPN sessions"; docs/job.md, "OpenVPN"). Idempotent (IF NOT EXISTS): the job applies every
-- listed migration at every start.

-- One row per OpenVPN session (the pair of session ids on one UDP flow at one vantage point), the
-- columns of a line of `flowtrace analyze --json` with "protocol": "openvpn" (dots become '_';
-- timeline_us.x becomes x_us). Written once, when the session's flow goes idle (300 s), is pushed
-- out by newer sessions, or input ends; a replay upserts the same row.
CREATE TABLE IF NOT EXISTS openvpn_sessions (
    vantage                         text        NOT NULL,
    client                          text        NOT NULL,
    server                          text        NOT NULL,
    first_seen_us                   bigint      NOT NULL,
    first_seen                      timestamptz NOT NULL,
    last_seen_us                    bigint      NOT NULL,
    last_seen                       timestamptz NOT NULL,
    client_id                       text,                   -- 16 hex digits; NULL if never seen
    server_id                       text,
    setup_completed                 boolean     NOT NULL,
    setup_us                        bigint,                 -- client's first hard reset to setup_end; NULL if not completed
    setup_end                       text,                   -- 'data' or 'control'
    control_exchange_us             bigint,
    client_reset_us                 bigint,                 -- timeline, µs after first_seen_us
    server_reset_us                 bigint,
    first_tls_us                    bigint,
    last_server_control_us          bigint,
    first_data_us                   bigint,
    c2s_control_packets             bigint      NOT NULL,
    c2s_ack_only_packets            bigint      NOT NULL,
    c2s_data_packets                bigint      NOT NULL,
    c2s_opaque_packets              bigint      NOT NULL,
    c2s_control_payload_bytes       bigint      NOT NULL,
    c2s_retransmits                 bigint      NOT NULL,
    c2s_retransmits_timeout         bigint      NOT NULL,
    c2s_retransmits_early           bigint      NOT NULL,   -- early_after_later_acks
    c2s_retransmits_reset_answer    bigint      NOT NULL,
    c2s_duplicates                  bigint      NOT NULL,
    c2s_late_first_copies           bigint      NOT NULL,
    c2s_retransmit_gaps_us          bigint[]    NOT NULL,
    c2s_backoff_timeout_gaps_us     bigint[]    NOT NULL,
    c2s_backoff_initial_us          double precision,
    c2s_backoff_ratio               double precision,
    c2s_ack_latency_samples         bigint      NOT NULL,
    c2s_ack_latency_min_us          bigint,
    c2s_ack_latency_avg_us          bigint,
    c2s_ack_latency_max_us          bigint,
    s2c_control_packets             bigint      NOT NULL,
    s2c_ack_only_packets            bigint      NOT NULL,
    s2c_data_packets                bigint      NOT NULL,
    s2c_opaque_packets              bigint      NOT NULL,
    s2c_control_payload_bytes       bigint      NOT NULL,
    s2c_retransmits                 bigint      NOT NULL,
    s2c_retransmits_timeout         bigint      NOT NULL,
    s2c_retransmits_early           bigint      NOT NULL,
    s2c_retransmits_reset_answer    bigint      NOT NULL,
    s2c_duplicates                  bigint      NOT NULL,
    s2c_late_first_copies           bigint      NOT NULL,
    s2c_retransmit_gaps_us          bigint[]    NOT NULL,
    s2c_backoff_timeout_gaps_us     bigint[]    NOT NULL,
    s2c_backoff_initial_us          double precision,
    s2c_backoff_ratio               double precision,
    s2c_ack_latency_samples         bigint      NOT NULL,
    s2c_ack_latency_min_us          bigint,
    s2c_ack_latency_avg_us          bigint,
    s2c_ack_latency_max_us          bigint,
    PRIMARY KEY (vantage, client, server, first_seen_us)
);
CREATE INDEX IF NOT EXISTS openvpn_sessions_server_first_seen ON openvpn_sessions (server, first_seen);
CREATE INDEX IF NOT EXISTS openvpn_sessions_last_seen ON openvpn_sessions (last_seen);

-- Per vantage, server and event-time window (10 s, 1 min): the sessions reported in it and their
-- setup-time distribution (sample sd, nearest-rank percentiles, as analyze --services).
CREATE TABLE IF NOT EXISTS openvpn_server_windows (
    vantage               text             NOT NULL,
    server                text             NOT NULL,
    window_size_ms        bigint           NOT NULL,
    window_start          timestamptz      NOT NULL,
    window_end            timestamptz      NOT NULL,
    sessions              bigint           NOT NULL,
    completed             bigint           NOT NULL,
    setup_mean_us         double precision,
    setup_sd_us           double precision,
    setup_p50_us          double precision,
    setup_p90_us          double precision,
    setup_p99_us          double precision,
    server_retransmits    bigint           NOT NULL,
    client_retransmits    bigint           NOT NULL,
    synchronised_retries  bigint           NOT NULL,
    PRIMARY KEY (vantage, server, window_size_ms, window_start)
);
CREATE INDEX IF NOT EXISTS openvpn_server_windows_server_start ON openvpn_server_windows (server, window_size_ms, window_start);
-- flowtrace_purge (below) visits window tables by (window_size_ms, window_start), as V1 indexes the others.
CREATE INDEX IF NOT EXISTS openvpn_server_windows_size_start ON openvpn_server_windows (window_size_ms, window_start);

-- deploy/sql/admin/roles.sql hands every table with this comment to the writer, the reader reads it.
COMMENT ON TABLE openvpn_sessions IS 'flowtrace sink table: one row per OpenVPN session (V8)';
COMMENT ON TABLE openvpn_server_windows IS 'flowtrace sink table: per-OpenVPN-server windows, 10 s and 1 min (V8)';

-- Retention covers the two tables above: flowtrace_purge (V5) again, with openvpn_sessions (by
-- last_seen) and openvpn_server_windows (by window end) added; everything else as in V5. CREATE OR
-- REPLACE resets the function's attributes, so V6's SECURITY DEFINER, search_path and EXECUTE
-- rules are applied again below.
CREATE OR REPLACE FUNCTION flowtrace_purge(cutoff timestamptz)
RETURNS TABLE (table_name text, deleted bigint)
LANGUAGE plpgsql AS $$
DECLARE
    n bigint;
    size_ms bigint;
    window_table text;
BEGIN
    IF cutoff IS NULL THEN
        RAISE EXCEPTION 'flowtrace_purge: cutoff must not be null';
    END IF;

    DELETE FROM tcp_events WHERE event_time < cutoff;
    GET DIAGNOSTICS n = ROW_COUNT;
    table_name := 'tcp_events'; deleted := n; RETURN NEXT;

    DELETE FROM flow_summary WHERE last_seen < cutoff;
    GET DIAGNOSTICS n = ROW_COUNT;
    table_name := 'flow_summary'; deleted := n; RETURN NEXT;

    DELETE FROM openvpn_sessions WHERE last_seen < cutoff;
    GET DIAGNOSTICS n = ROW_COUNT;
    table_name := 'openvpn_sessions'; deleted := n; RETURN NEXT;

    DELETE FROM flow_conntrack WHERE join_time_us < floor(extract(epoch FROM cutoff) * 1000000)::bigint;
    GET DIAGNOSTICS n = ROW_COUNT;
    table_name := 'flow_conntrack'; deleted := n; RETURN NEXT;

    -- The window indexes lead with window_size_ms: visit each size (a handful) through the index
    -- (min() over a leading column is an index probe) instead of scanning the table.
    FOREACH window_table IN ARRAY ARRAY['service_windows', 'vantage_windows', 'conntrack_budgets',
            'openvpn_server_windows'] LOOP
        deleted := 0;
        EXECUTE format('SELECT min(window_size_ms) FROM %I', window_table) INTO size_ms;
        WHILE size_ms IS NOT NULL LOOP
            EXECUTE format('DELETE FROM %I WHERE window_size_ms = $1 AND window_start < $2 - make_interval(secs => $1 / 1000.0)',
                    window_table) USING size_ms, cutoff;
            GET DIAGNOSTICS n = ROW_COUNT;
            deleted := deleted + n;
            EXECUTE format('SELECT min(window_size_ms) FROM %I WHERE window_size_ms > $1', window_table)
                    INTO size_ms USING size_ms;
        END LOOP;
        table_name := window_table; RETURN NEXT;
    END LOOP;

    DELETE FROM dead_letters WHERE job_time < cutoff;
    GET DIAGNOSTICS n = ROW_COUNT;
    table_name := 'dead_letters'; deleted := n; RETURN NEXT;
END;
$$;

ALTER FUNCTION flowtrace_purge(timestamptz) SECURITY DEFINER SET search_path = public, pg_temp;
REVOKE ALL ON FUNCTION flowtrace_purge(timestamptz) FROM PUBLIC;
