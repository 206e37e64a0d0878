-- flowtrace sink schema, version 5: indexes for the Grafana dashboards (deploy/grafana/)
-- and retention. Idempotent like V1-V3: the job applies every listed migration at each start.
--
-- Retention is a cleanup function, not time partitioning. Every upsert key (V1) lacks a time
-- column or has one that moves (flow_summary.last_seen grows while a flow lives), and PostgreSQL
-- requires the partition key in every unique constraint that ON CONFLICT targets; partitioning
-- would change the keys the job's idempotent upserts rely on (docs/job.md, "Delivery guarantees").
-- flowtrace_purge deletes by the time columns that already have indexes; run it often (hourly) so
-- each run deletes a small slice, and let autovacuum reclaim the space (docs/operations.md).

-- Every sink table says so in its comment: deploy/sql/admin/roles.sql hands the tables with this
-- comment to the writer role. A later migration that creates a table comments it the same way.
COMMENT ON TABLE flow_summary IS 'flowtrace sink table: one row per flow instance (V1)';
COMMENT ON TABLE tcp_events IS 'flowtrace sink table: retransmissions, slow-start exits, zero windows, backoffs (V1)';
COMMENT ON TABLE service_windows IS 'flowtrace sink table: per-service windows, 10 s and 1 min (V1, V3)';
COMMENT ON TABLE vantage_windows IS 'flowtrace sink table: per-vantage windows, 10 s and 1 min (V1)';
COMMENT ON TABLE conntrack_budgets IS 'flowtrace sink table: conntrack event-size budgets (V1, V2)';
COMMENT ON TABLE dead_letters IS 'flowtrace sink table: input records that did not decode or validate (V1)';
COMMENT ON TABLE flow_conntrack IS 'flowtrace sink table: the conntrack entry of each flow (V4)';

-- Indexes. V1 already indexes every time column the dashboards filter on (flow_summary.last_seen,
-- (server, last_seen), tcp_events (kind, event_time), the windows' (window_size_ms, window_start),
-- dead_letters.job_time) and a flow's events come by primary key. The one query shape without an
-- index: the services dashboard's per-service windows over a time range (service_windows' key starts
-- with vantage, and "All" vantages is the usual choice).
CREATE INDEX IF NOT EXISTS service_windows_service_start ON service_windows (service, window_size_ms, window_start);
-- The retention of the conntrack <-> flow join (V4): its rows age by join_time_us (event time, µs).
CREATE INDEX IF NOT EXISTS flow_conntrack_join_time ON flow_conntrack (join_time_us);

-- Deletes every row older than the cutoff: flows whose last packet, events whose packet, windows
-- whose end, dead letters whose job time, joined conntrack rows whose latest flow or conntrack event
-- lie before it. Returns the rows deleted per table.
-- SECURITY INVOKER (the default): only a role that may DELETE (the writer) can purge.
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

    DELETE FROM flow_conntrack WHERE join_time_us < floor(extract(epoch FROM cutoff) * 1000000)::bigint;
    GET DIAGNOSTICS n = ROW_COUNT;
    table_name := 'flow_conntrack'; deleted := n; RETURN NEXT;

    -- The window indexes lead with window_size_ms: visit each size (a handful) through the index
    -- (min() over a leading column is an index probe) instead of scanning the table.
    FOREACH window_table IN ARRAY ARRAY['service_windows', 'vantage_windows', 'conntrack_budgets'] LOOP
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

-- Keeps the last `keep` of data: SELECT * FROM flowtrace_purge_older_than(interval '14 days').
CREATE OR REPLACE FUNCTION flowtrace_purge_older_than(keep interval)
RETURNS TABLE (table_name text, deleted bigint)
LANGUAGE sql AS $$
    SELECT * FROM flowtrace_purge(now() - keep)
$$;

-- Dashboards (read-only role) must not delete; the owner (the writer) keeps EXECUTE.
REVOKE ALL ON FUNCTION flowtrace_purge(timestamptz) FROM PUBLIC;
REVOKE ALL ON FUNCTION flowtrace_purge_older_than(interval) FROM PUBLIC;
