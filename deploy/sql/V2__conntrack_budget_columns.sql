-- flowtrace sink schema, version 2: the columns conntrack budgets need beyond V1 (docs/conntrack.md, docs/job.md).
-- Idempotent (IF NOT EXISTS, DROP NOT NULL): the job applies V1 then V2 at every start.

ALTER TABLE conntrack_budgets
    ADD COLUMN IF NOT EXISTS events_new              bigint           NOT NULL DEFAULT 0,
    ADD COLUMN IF NOT EXISTS events_update           bigint           NOT NULL DEFAULT 0,
    ADD COLUMN IF NOT EXISTS events_destroy          bigint           NOT NULL DEFAULT 0,
    ADD COLUMN IF NOT EXISTS exact_bytes_per_second  double precision,
    ADD COLUMN IF NOT EXISTS truesize_bytes_per_second double precision,
    ADD COLUMN IF NOT EXISTS size_min                double precision,
    ADD COLUMN IF NOT EXISTS size_mean               double precision,
    ADD COLUMN IF NOT EXISTS size_p50                double precision,
    ADD COLUMN IF NOT EXISTS size_p90                double precision,
    ADD COLUMN IF NOT EXISTS size_p99                double precision,
    ADD COLUMN IF NOT EXISTS size_max                double precision,
    ADD COLUMN IF NOT EXISTS drain_latency_ms        double precision,
    ADD COLUMN IF NOT EXISTS buffer_effective_bytes  bigint,
    ADD COLUMN IF NOT EXISTS buffer_utilisation      double precision,
    ADD COLUMN IF NOT EXISTS predicted_drops         bigint,
    ADD COLUMN IF NOT EXISTS enobufs_risk            text;

-- enobufs_predicted (bigint, V1) holds the predicted ENOBUFS count of core's receive-queue replay
-- (0 when the configured buffer holds); enobufs_observed is NULL when no source that can see ENOBUFS
-- (raw netlink) wrote to the window.
ALTER TABLE conntrack_budgets ALTER COLUMN enobufs_observed DROP NOT NULL;
