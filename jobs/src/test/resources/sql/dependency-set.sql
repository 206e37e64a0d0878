-- Sink table of DependencySetITCase: packets counted per flow, one row per (run, flow).
CREATE TABLE IF NOT EXISTS flow_packet_counts (
    run     text   NOT NULL,
    flow    text   NOT NULL,
    packets bigint NOT NULL,
    PRIMARY KEY (run, flow)
);
