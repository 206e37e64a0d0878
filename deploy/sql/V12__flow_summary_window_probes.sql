-- flowtrace sink schema, version 12: zero-window probes per direction in flow_summary, the columns of
-- the catalogue field window_probes (report/src/main/java/io/flowtrace/report/DirectionFields.java;
-- rule in docs/metrics.md), in the flow record since its first release. NULL in rows written before
-- this version. Idempotent: the job applies every migration of migrations.list at every start.

ALTER TABLE flow_summary
    ADD COLUMN IF NOT EXISTS c2s_window_probes bigint,
    ADD COLUMN IF NOT EXISTS s2c_window_probes bigint;
