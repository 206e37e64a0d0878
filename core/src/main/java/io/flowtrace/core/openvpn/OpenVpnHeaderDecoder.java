package io.flowtrace.core.openvpn;

/**
 * Reads the OpenVPN header of one UDP payload into an {@link OpenVpnHeader}, without allocating.
 * The layout (src/openvpn/ssl_pkt.c write_control_auth, reliable.c reliable_ack_write, OpenVPN 2.6):
 *
 * <pre>
 *   opcode&lt;&lt;3 | key id      1
 *   session id               8      (not in data packets)
 *   [tls-auth: HMAC          digest size, then replay packet-id 4 + net time 4]
 *   [tls-crypt: replay packet-id 4 + net time 4 + tag 32, the rest encrypted]
 *   ACK count                1      (at most 8)
 *   ACK packet-ids           4 each
 *   remote session id        8      (only when the ACK count is above 0)
 *   message packet-id        4      (not in P_ACK_V1)
 *   payload (TLS records)
 *
 *   P_DATA_V1: opcode | payload     P_DATA_V2: opcode | peer id (3) | payload
 * </pre>
 *
 * Hand-written for the same reason as the packet decoder: it runs on every packet of the port.
 */
public final class OpenVpnHeaderDecoder {
    private static final int SESSION_ID = 8;
    private static final int REPLAY_ID_AND_TIME = 8;
    private static final int TLS_CRYPT_TAG = 32;

    private final OpenVpnWire wire;

    public OpenVpnHeaderDecoder(OpenVpnWire wire) {
        this.wire = wire;
    }

    /**
     * Decodes {@code b[off, off + captured)}, the captured part of a UDP payload of
     * {@code length} bytes; returns {@code out.kind}.
     */
    public OpenVpnHeader.Kind decode(byte[] b, int off, int captured, int length, OpenVpnHeader out) {
        return decode(wire, b, off, captured, length, out);
    }

    /** As {@link #decode(byte[], int, int, int, OpenVpnHeader)}, with one flow's {@code layout}. */
    // LONG-METHOD: one pass over the header in wire order (the table above), each field's bounds check beside its read;
    // steps of their own would hand the cursor and the failure back through a sentinel on every packet of the port
    public OpenVpnHeader.Kind decode(
            OpenVpnWire layout, byte[] b, int off, int captured, int length, OpenVpnHeader out) {
        out.reset();
        out.layout = layout;
        if (length < 1 || captured < 1) {
            return fail(out, OpenVpnHeader.Kind.TRUNCATED, "empty OpenVPN packet");
        }
        int end = off + Math.min(captured, length);
        int op = (b[off] & 0xff) >>> 3;
        out.opcode = op;
        out.keyId = b[off] & 0x07;
        int p = off + 1;
        if (OpenVpnOpcode.isData(op)) {
            if (op == OpenVpnOpcode.DATA_V2) {
                if (p + 3 > end) {
                    return fail(out, OpenVpnHeader.Kind.TRUNCATED, "P_DATA_V2 peer id truncated");
                }
                out.peerId = (b[p] & 0xff) << 16 | (b[p + 1] & 0xff) << 8 | (b[p + 2] & 0xff);
                p += 3;
            }
            out.payloadLength = length - (p - off);
            out.kind = OpenVpnHeader.Kind.DATA;
            return out.kind;
        }
        boolean control = OpenVpnOpcode.isReliableControl(op);
        if (!control && op != OpenVpnOpcode.ACK_V1) {
            return fail(out, OpenVpnHeader.Kind.MALFORMED, "unknown OpenVPN opcode");
        }
        if (p + SESSION_ID > end) {
            return fail(out, OpenVpnHeader.Kind.TRUNCATED, "OpenVPN session id truncated");
        }
        out.sessionId = u64(b, p);
        p += SESSION_ID;
        if (layout.tlsCrypt()) {
            if (p + REPLAY_ID_AND_TIME + TLS_CRYPT_TAG > end) {
                return fail(out, OpenVpnHeader.Kind.TRUNCATED, "tls-crypt header truncated");
            }
            p += REPLAY_ID_AND_TIME + TLS_CRYPT_TAG;
            out.payloadLength = length - (p - off);
            out.kind = OpenVpnHeader.Kind.OPAQUE;
            return out.kind;
        }
        if (layout.tlsAuthDigestBytes() > 0) {
            p += layout.tlsAuthDigestBytes() + REPLAY_ID_AND_TIME;
        }
        if (p + 1 > end) {
            return fail(out, OpenVpnHeader.Kind.TRUNCATED, "OpenVPN ACK count truncated");
        }
        int acks = b[p++] & 0xff;
        if (acks > OpenVpnHeader.MAX_ACKS) {
            return fail(out, OpenVpnHeader.Kind.MALFORMED, "OpenVPN ACK count above 8");
        }
        if (p + 4 * acks + (acks > 0 ? SESSION_ID : 0) > end) {
            return fail(out, OpenVpnHeader.Kind.TRUNCATED, "OpenVPN ACK array truncated");
        }
        for (int i = 0; i < acks; i++) {
            out.ackIds[i] = u32(b, p);
            p += 4;
        }
        out.ackCount = acks;
        if (acks > 0) {
            out.remoteSessionId = u64(b, p);
            p += SESSION_ID;
        }
        if (control) {
            if (p + 4 > end) {
                return fail(out, OpenVpnHeader.Kind.TRUNCATED, "OpenVPN message packet-id truncated");
            }
            out.messagePacketId = u32(b, p);
            p += 4;
        }
        out.payloadLength = length - (p - off);
        if (out.payloadLength < 0) {
            return fail(out, OpenVpnHeader.Kind.MALFORMED, "OpenVPN header longer than the datagram");
        }
        out.kind = control ? OpenVpnHeader.Kind.CONTROL : OpenVpnHeader.Kind.ACK;
        return out.kind;
    }

    private static OpenVpnHeader.Kind fail(OpenVpnHeader out, OpenVpnHeader.Kind kind, String reason) {
        out.kind = kind;
        out.reason = reason;
        return kind;
    }

    private static long u32(byte[] b, int p) {
        return ((long) (b[p] & 0xff) << 24) | ((b[p + 1] & 0xff) << 16) | ((b[p + 2] & 0xff) << 8) | (b[p + 3] & 0xff);
    }

    private static long u64(byte[] b, int p) {
        return u32(b, p) << 32 | u32(b, p + 4);
    }
}
