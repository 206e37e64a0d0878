-- flowtrace sink schema, version 11: RST segments per direction in flow_summary, the columns of the
-- catalogue field resets (report/src/main/java/io/flowtrace/report/DirectionFields.java; rule in
-- docs/metrics.md). NULL in rows written before this version. Idempotent: the job applies V1..V11 at
-- every start.

ALTER TABLE flow_summary
    ADD COLUMN IF NOT EXISTS c2s_resets bigint,
    ADD COLUMN IF NOT EXISTS s2c_resets bigint;
