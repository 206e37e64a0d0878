-- flowtrace sink schema, version 1 (docs/job.md). Idempotent: the job applies it at start
-- (--jdbc-init-schema, default true) and tests apply it to a fresh database; running it again
-- changes nothing. Every table has the stable upsert key of docs/schemas.md as its primary key,
-- so a replay after a failure rewrites the same rows (docs/job.md).

-- One row per flow instance, upserted while the flow lives (periodic updates, close) and once
-- more when it ends (final = true). report holds exactly the 'flowtrace analyze --json' object.
CREATE TABLE IF NOT EXISTS flow_summary (
    vantage                 text             NOT NULL,
    client                  text             NOT NULL,
    server                  text             NOT NULL,
    instance                bigint           NOT NULL,
    client_guessed          boolean          NOT NULL,
    first_seen              timestamptz      NOT NULL,
    last_seen               timestamptz      NOT NULL,
    end_state               text             NOT NULL,
    final                   boolean          NOT NULL,
    setup_us                double precision,
    handshake_rtt_us        double precision,
    syn_retransmits         integer          NOT NULL,
    c2s_packets             bigint           NOT NULL,
    s2c_packets             bigint           NOT NULL,
    c2s_data_bytes          bigint           NOT NULL,
    s2c_data_bytes          bigint           NOT NULL,
    c2s_unique_bytes        bigint           NOT NULL,
    s2c_unique_bytes        bigint           NOT NULL,
    c2s_retransmitted_packets bigint         NOT NULL,
    s2c_retransmitted_packets bigint         NOT NULL,
    retransmits_rto         bigint           NOT NULL,
    retransmits_fast        bigint           NOT NULL,
    retransmits_spurious    bigint           NOT NULL,
    retransmits_tlp         bigint           NOT NULL,
    retransmits_other       bigint           NOT NULL,
    c2s_rtt_avg_us          double precision,
    s2c_rtt_avg_us          double precision,
    c2s_throughput_bps      double precision NOT NULL,
    s2c_throughput_bps      double precision NOT NULL,
    late_packets            bigint           NOT NULL,
    record_time_us          bigint           NOT NULL,
    report                  jsonb            NOT NULL,
    PRIMARY KEY (vantage, client, server, instance)
);
CREATE INDEX IF NOT EXISTS flow_summary_last_seen ON flow_summary (last_seen);
CREATE INDEX IF NOT EXISTS flow_summary_server_last_seen ON flow_summary (server, last_seen);

-- Notable events inside flows; index is the event's ordinal within its flow instance.
CREATE TABLE IF NOT EXISTS tcp_events (
    vantage             text        NOT NULL,
    client              text        NOT NULL,
    server              text        NOT NULL,
    instance            bigint      NOT NULL,
    event_index         bigint      NOT NULL,
    event_time          timestamptz NOT NULL,
    kind                text        NOT NULL,
    direction           text        NOT NULL,
    retransmit_class    text,
    seq                 bigint,
    bytes               bigint,
    since_original_us   bigint,
    retries             integer,
    PRIMARY KEY (vantage, client, server, instance, event_index)
);
CREATE INDEX IF NOT EXISTS tcp_events_time ON tcp_events (event_time);
CREATE INDEX IF NOT EXISTS tcp_events_kind_time ON tcp_events (kind, event_time);

-- Per vantage, service (server ip:port) and tumbling event-time window, over the flows that
-- ended in the window. Percentiles are exact up to the reservoir size (docs/job.md).
CREATE TABLE IF NOT EXISTS service_windows (
    vantage                 text             NOT NULL,
    service                 text             NOT NULL,
    window_size_ms          bigint           NOT NULL,
    window_start            timestamptz      NOT NULL,
    window_end              timestamptz      NOT NULL,
    connections             bigint           NOT NULL,
    completed_handshakes    bigint           NOT NULL,
    setup_count             bigint           NOT NULL,
    setup_mean_us           double precision,
    setup_sd_us             double precision,
    setup_p50_us            double precision,
    setup_p90_us            double precision,
    setup_p99_us            double precision,
    syn_retransmits         bigint           NOT NULL,
    synack_retransmits      bigint           NOT NULL,
    data_packets            bigint           NOT NULL,
    data_bytes              bigint           NOT NULL,
    retransmitted_packets   bigint           NOT NULL,
    retransmits_rto         bigint           NOT NULL,
    retransmits_fast        bigint           NOT NULL,
    retransmits_spurious    bigint           NOT NULL,
    retransmits_tlp         bigint           NOT NULL,
    retransmits_other       bigint           NOT NULL,
    retransmit_rate         double precision,
    rtt_count               bigint           NOT NULL,
    rtt_p50_us              double precision,
    rtt_p90_us              double precision,
    rtt_p99_us              double precision,
    throughput_bps          double precision NOT NULL,
    PRIMARY KEY (vantage, service, window_size_ms, window_start)
);
CREATE INDEX IF NOT EXISTS service_windows_start ON service_windows (window_size_ms, window_start);

-- Per vantage and tumbling event-time window, over the flows that ended in the window.
CREATE TABLE IF NOT EXISTS vantage_windows (
    vantage                 text             NOT NULL,
    window_size_ms          bigint           NOT NULL,
    window_start            timestamptz      NOT NULL,
    window_end              timestamptz      NOT NULL,
    flows_ended             bigint           NOT NULL,
    packets                 bigint           NOT NULL,
    late_packets            bigint           NOT NULL,
    data_packets            bigint           NOT NULL,
    retransmitted_packets   bigint           NOT NULL,
    retransmits_rto         bigint           NOT NULL,
    retransmits_fast        bigint           NOT NULL,
    retransmits_spurious    bigint           NOT NULL,
    retransmits_tlp         bigint           NOT NULL,
    retransmits_other       bigint           NOT NULL,
    rtt_p50_us              double precision,
    rtt_p90_us              double precision,
    rtt_p99_us              double precision,
    throughput_bps          double precision NOT NULL,
    PRIMARY KEY (vantage, window_size_ms, window_start)
);
CREATE INDEX IF NOT EXISTS vantage_windows_start ON vantage_windows (window_size_ms, window_start);

-- Conntrack event-size budgets per vantage and window (docs/conntrack.md; created for the dashboards,
-- filled once the job consumes flowtrace.conntrack).
CREATE TABLE IF NOT EXISTS conntrack_budgets (
    vantage                 text             NOT NULL,
    window_size_ms          bigint           NOT NULL,
    window_start            timestamptz      NOT NULL,
    window_end              timestamptz      NOT NULL,
    events                  bigint           NOT NULL,
    events_per_second       double precision NOT NULL,
    exact_bytes             bigint           NOT NULL,
    estimated_bytes         bigint           NOT NULL,
    truesize_bytes          bigint           NOT NULL,
    waste_ratio             double precision,
    peak_burst_10ms         bigint           NOT NULL,
    peak_burst_100ms        bigint           NOT NULL,
    buffer_needed_bytes     bigint           NOT NULL,
    buffer_configured_bytes bigint           NOT NULL,
    enobufs_predicted       bigint           NOT NULL,
    enobufs_observed        bigint           NOT NULL,
    PRIMARY KEY (vantage, window_size_ms, window_start)
);
CREATE INDEX IF NOT EXISTS conntrack_budgets_start ON conntrack_budgets (window_size_ms, window_start);

-- Inputs the job could not use, with the raw bytes for inspection and replay.
CREATE TABLE IF NOT EXISTS dead_letters (
    topic               text        NOT NULL,
    kafka_partition     integer     NOT NULL,
    kafka_offset        bigint      NOT NULL,
    kafka_timestamp     timestamptz NOT NULL,
    stage               text        NOT NULL,
    reason              text        NOT NULL,
    error_class         text,
    schema_fingerprint  bigint,
    record_key          bytea,
    raw                 bytea       NOT NULL,
    job_time            timestamptz NOT NULL,
    PRIMARY KEY (topic, kafka_partition, kafka_offset)
);
CREATE INDEX IF NOT EXISTS dead_letters_job_time ON dead_letters (job_time);
