-- flowtrace sink schema, version 10: how each OpenVPN session was carried and read (the "wire"
-- object of a line of `flowtrace analyze --json` with "protocol": "openvpn"; docs/metrics.md,
-- "OpenVPN modes"): transport udp or tcp, control-channel wrapping plain / tls-auth / tls-crypt, the
-- tls-auth HMAC size, whether the wrapping was found from the packets or set by an option, and over TCP each side's TCP retransmissions.
-- Rows written before this version read udp / NULL / 0 / false. Idempotent: the job applies V1..V10
-- at every start.

ALTER TABLE openvpn_sessions
    ADD COLUMN IF NOT EXISTS wire_transport text NOT NULL DEFAULT 'udp',
    ADD COLUMN IF NOT EXISTS wire_wrapping text,
    ADD COLUMN IF NOT EXISTS wire_tls_auth_hmac_bytes integer NOT NULL DEFAULT 0,
    ADD COLUMN IF NOT EXISTS wire_detected boolean NOT NULL DEFAULT false,
    ADD COLUMN IF NOT EXISTS c2s_tcp_retransmits bigint NOT NULL DEFAULT 0,   -- proto tcp: TCP retransmissions
    ADD COLUMN IF NOT EXISTS s2c_tcp_retransmits bigint NOT NULL DEFAULT 0;
