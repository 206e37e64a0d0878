-- flowtrace sink schema, version 7: D-SACKs per direction in flow_summary, the columns of the catalogue
-- field dsacks (report/src/main/java/io/flowtrace/report/DirectionFields.java; rule in docs/metrics.md).
-- NULL in rows written before this version. Idempotent: the job applies V1..V7 at every start.

ALTER TABLE flow_summary
    ADD COLUMN IF NOT EXISTS c2s_dsacks bigint,
    ADD COLUMN IF NOT EXISTS s2c_dsacks bigint;
