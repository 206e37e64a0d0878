package io.flowtrace.core.openvpn;

import java.util.Locale;

/**
 * One OpenVPN session: the pair of session ids on one UDP flow, with both directions of its
 * reliability layer and the setup timeline (docs/metrics.md, OpenVPN section).
 *
 * <p>Setup time runs from the client's first hard reset to the first data-channel packet in
 * either direction ({@link SetupEnd#DATA}). A client that connects and leaves sends no data
 * packet; then setup ends with the client's ACK of the server's last control packet carrying
 * payload in the initial exchange (key id 0), i.e. the ACK after which all of them were ACKed
 * ({@link SetupEnd#CONTROL}). Otherwise setup did not
 * complete (no reset seen, or the server's last control packet was never ACKed).
 */
public final class OpenVpnSession {
    public enum SetupEnd {
        DATA,
        CONTROL;

        public String jsonName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private final String client;
    private final String server;
    private final String vantage;
    long clientSessionId;
    boolean clientSessionKnown;
    long serverSessionId;
    boolean serverSessionKnown;
    final long firstSeenNanos;
    long lastSeenNanos;
    final OpenVpnDirectionStats c2s = new OpenVpnDirectionStats();
    final OpenVpnDirectionStats s2c = new OpenVpnDirectionStats();
    long clientResetNanos = -1;
    long serverResetNanos = -1;
    long firstTlsNanos = -1;
    long firstDataNanos = -1;
    /** True once a key id other than 0 was seen: a renegotiation, not part of setup. */
    boolean renegotiated;
    /** Carried over TCP (proto tcp). */
    boolean tcp;
    /** The wrapping the session's first control or ACK packet was read with; null before it. */
    OpenVpnWire layout;

    OpenVpnSession(String vantage, String client, String server, long firstSeenNanos) {
        this.vantage = vantage;
        this.client = client;
        this.server = server;
        this.firstSeenNanos = firstSeenNanos;
        this.lastSeenNanos = firstSeenNanos;
    }

    /** Feeds one decoded packet of this session, sent by the client if {@code fromClient}. */
    void onPacket(OpenVpnHeader h, boolean fromClient, long t) {
        lastSeenNanos = Math.max(lastSeenNanos, t);
        OpenVpnDirectionStats own = fromClient ? c2s : s2c;
        OpenVpnDirectionStats peer = fromClient ? s2c : c2s;
        own.onOwnPacket(t, peer);
        if (h.kind != OpenVpnHeader.Kind.DATA) {
            renegotiated |= h.keyId != 0;
            if (layout == null) {
                layout = h.layout;
            }
        }
        switch (h.kind) {
            case DATA -> {
                own.dataPackets++;
                if (firstDataNanos < 0) {
                    firstDataNanos = t;
                }
            }
            case OPAQUE -> {
                own.opaquePackets++;
                noteResets(h.opcode, fromClient, t, peer);
                if (OpenVpnOpcode.isClientReset(h.opcode) || OpenVpnOpcode.isServerReset(h.opcode)) {
                    // tls-crypt hides the message packet-id, but a hard reset is always message
                    // packet-id 0 of its session (the reliable layer's first message): a second one
                    // with the same session id is a retransmission, exactly (docs/metrics.md)
                    own.onHardReset(t, OpenVpnOpcode.isServerReset(h.opcode));
                } else if (h.opcode == OpenVpnOpcode.CONTROL_V1 && h.keyId == 0) {
                    // its message packet-id is encrypted: a copy is inferred from length and timing
                    own.onOpaqueControl(t, h.payloadLength);
                }
            }
            case ACK -> {
                own.ackOnlyPackets++;
                peer.onPeerAcks(h.ackIds, h.ackCount, t);
            }
            case CONTROL -> {
                peer.onPeerAcks(h.ackIds, h.ackCount, t);
                noteResets(h.opcode, fromClient, t, peer);
                if (h.opcode == OpenVpnOpcode.CONTROL_V1 && firstTlsNanos < 0) {
                    firstTlsNanos = t;
                }
                int payload = h.keyId == 0 ? h.payloadLength : 0; // renegotiation payload is not setup
                own.onControl(h.messagePacketId, t, payload, OpenVpnOpcode.isServerReset(h.opcode));
            }
            default -> {} // TRUNCATED / MALFORMED never reach a session
        }
    }

    private void noteResets(int opcode, boolean fromClient, long t, OpenVpnDirectionStats peer) {
        if (fromClient && OpenVpnOpcode.isClientReset(opcode)) {
            if (clientResetNanos < 0) {
                clientResetNanos = t;
            } else {
                peer.onPeerReset();
            }
        } else if (!fromClient && OpenVpnOpcode.isServerReset(opcode) && serverResetNanos < 0) {
            serverResetNanos = t;
        }
    }

    /** "udp", or "tcp" for proto tcp (packets framed on a TCP stream). */
    public String transport() {
        return tcp ? "tcp" : "udp";
    }

    /** "plain", "tls-auth" or "tls-crypt"; null if no control packet was seen. */
    public String wrapping() {
        return layout == null ? null : layout.wrapping();
    }

    /** The tls-auth HMAC size in bytes; 0 without tls-auth. */
    public int tlsAuthHmacBytes() {
        return layout == null ? 0 : layout.tlsAuthDigestBytes();
    }

    /** True if the wrapping was found from the packets, false if an option set it. */
    public boolean wrappingDetected() {
        return layout != null && layout.detect();
    }

    public String client() {
        return client;
    }

    public String server() {
        return server;
    }

    public String vantage() {
        return vantage;
    }

    /** 16 hex digits, or null if the client's session id was never seen. */
    public String clientSessionId() {
        return clientSessionKnown ? OpenVpnHeader.sessionIdText(clientSessionId) : null;
    }

    public String serverSessionId() {
        return serverSessionKnown ? OpenVpnHeader.sessionIdText(serverSessionId) : null;
    }

    public long firstSeenNanos() {
        return firstSeenNanos;
    }

    public long lastSeenNanos() {
        return lastSeenNanos;
    }

    public OpenVpnDirectionStats c2s() {
        return c2s;
    }

    public OpenVpnDirectionStats s2c() {
        return s2c;
    }

    public long clientResetNanos() {
        return clientResetNanos;
    }

    public long serverResetNanos() {
        return serverResetNanos;
    }

    public long firstTlsNanos() {
        return firstTlsNanos;
    }

    public long firstDataNanos() {
        return firstDataNanos;
    }

    /**
     * The server's last control packet carrying payload in the initial exchange (the end of the
     * push reply, which may be split into many ~1 KB messages); -1 if none.
     */
    public long lastServerControlNanos() {
        return s2c.lastControlWithPayloadNanos;
    }

    /** How setup ended, or null if it did not complete. */
    public SetupEnd setupEnd() {
        if (clientResetNanos < 0) {
            return null;
        }
        if (firstDataNanos >= 0) {
            return SetupEnd.DATA;
        }
        return controlEndNanos() >= 0 ? SetupEnd.CONTROL : null;
    }

    /**
     * The client's ACK that completed the server's initial control messages (every one carrying
     * payload ACKed; a lost one resent later ends the exchange only when it is ACKed); -1 if not seen.
     */
    long controlEndNanos() {
        return firstTlsNanos < 0 ? -1 : s2c.allPayloadAckedAt();
    }

    /**
     * From the client's first hard reset to the end of the initial control exchange (the client's
     * ACK of the server's last payload-carrying control packet), whether or not data followed; -1
     * if that ACK was not seen. Without data it is the setup time.
     */
    public long controlExchangeNanos() {
        long end = controlEndNanos();
        return clientResetNanos < 0 || end < 0 ? -1 : end - clientResetNanos;
    }

    public boolean setupCompleted() {
        return setupEnd() != null;
    }

    /** Setup time in nanoseconds, -1 if setup did not complete. */
    public long setupNanos() {
        SetupEnd end = setupEnd();
        if (end == null) {
            return -1;
        }
        return (end == SetupEnd.DATA ? firstDataNanos : controlEndNanos()) - clientResetNanos;
    }
}
