-- flowtrace sink schema, version 3: slow-start exits per service window (docs/metrics.md: "slow-start exit
-- cwnd distribution and premature share"). Idempotent: the job applies V1, V2, V3 at every start.

ALTER TABLE service_windows
    ADD COLUMN IF NOT EXISTS slow_start_exits            bigint           NOT NULL DEFAULT 0,
    ADD COLUMN IF NOT EXISTS slow_start_exit_cwnd_p50    double precision,
    ADD COLUMN IF NOT EXISTS slow_start_exit_cwnd_p90    double precision,
    ADD COLUMN IF NOT EXISTS slow_start_premature        bigint           NOT NULL DEFAULT 0,
    ADD COLUMN IF NOT EXISTS slow_start_premature_share  double precision;
