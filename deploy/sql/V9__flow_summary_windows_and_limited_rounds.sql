-- flowtrace sink schema, version 9: per direction in flow_summary, the smallest and largest receive
-- window the side advertised, and its small rounds (2-6 segments, not a stuck cwnd) by limit: receive
-- window or application (catalogue fields window.min_bytes, window.max_bytes, rwnd_limited_rounds,
-- app_limited_rounds in report/src/main/java/io/flowtrace/report/DirectionFields.java; rules in
-- docs/metrics.md). NULL in rows written before this version. Idempotent: the job applies V1..V9 at
-- every start.

ALTER TABLE flow_summary
    ADD COLUMN IF NOT EXISTS c2s_window_min_bytes bigint,
    ADD COLUMN IF NOT EXISTS s2c_window_min_bytes bigint,
    ADD COLUMN IF NOT EXISTS c2s_window_max_bytes bigint,
    ADD COLUMN IF NOT EXISTS s2c_window_max_bytes bigint,
    ADD COLUMN IF NOT EXISTS c2s_rwnd_limited_rounds integer,
    ADD COLUMN IF NOT EXISTS s2c_rwnd_limited_rounds integer,
    ADD COLUMN IF NOT EXISTS c2s_app_limited_rounds integer,
    ADD COLUMN IF NOT EXISTS s2c_app_limited_rounds integer;
