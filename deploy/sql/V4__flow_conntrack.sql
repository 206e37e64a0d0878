-- flowtrace sink schema, version 4: the conntrack <-> flow join (issues 5 and 6, docs/conntrack.md "Join").
-- One row per flow instance (flow_summary's key) that matched a conntrack entry, upserted by the job's
-- join whenever the flow or the entry changes. Directions are the flow's (c2s = client -> server).
-- Idempotent (IF NOT EXISTS): the job applies every migration at every start.

CREATE TABLE IF NOT EXISTS flow_conntrack (
    vantage               text        NOT NULL,
    client                text        NOT NULL,
    server                text        NOT NULL,
    instance              bigint      NOT NULL,
    ct_vantage            text        NOT NULL,
    ct_id                 bigint,                 -- CTA_ID; NULL when the source did not see it
    tuple_side            text        NOT NULL,   -- 'original' (capture before the NAT) or 'reply' (after it)
    nat                   text        NOT NULL,   -- 'none', 'snat', 'dnat' or 'snat+dnat'
    pre_nat_client        text        NOT NULL,   -- original tuple source
    pre_nat_server        text        NOT NULL,   -- original tuple destination
    post_nat_client       text        NOT NULL,   -- reply tuple destination
    post_nat_server       text        NOT NULL,   -- reply tuple source
    ct_status             bigint      NOT NULL,   -- CTA_STATUS IPS_* bits
    ct_tcp_state          integer,                -- enum tcp_conntrack of the latest event that had one
    ct_start              timestamptz,            -- CTA_TIMESTAMP_START
    ct_stop               timestamptz,            -- CTA_TIMESTAMP_STOP (DESTROY)
    ct_start_ns           bigint,
    ct_stop_ns            bigint,
    ct_destroyed          boolean     NOT NULL,
    ct_c2s_packets        bigint,                 -- conntrack counters (DESTROY), in the flow's directions
    ct_c2s_bytes          bigint,
    ct_s2c_packets        bigint,
    ct_s2c_bytes          bigint,
    captured_c2s_packets  bigint      NOT NULL,   -- what the capture saw (flow_summary.c2s_packets)
    captured_s2c_packets  bigint      NOT NULL,
    c2s_missing_packets   bigint,                 -- capture loss: ct_c2s_packets - captured_c2s_packets, once both are final
    s2c_missing_packets   bigint,
    flow_final            boolean     NOT NULL,
    join_time_us          bigint      NOT NULL,   -- orders the versions of a row
    PRIMARY KEY (vantage, client, server, instance)
);
CREATE INDEX IF NOT EXISTS flow_conntrack_ct ON flow_conntrack (ct_vantage, ct_id);
