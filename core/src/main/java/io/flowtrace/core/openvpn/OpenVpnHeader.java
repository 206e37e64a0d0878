package io.flowtrace.core.openvpn;

import java.util.Locale;

/**
 * The compact header view of one OpenVPN packet, as {@link OpenVpnHeaderDecoder} found it.
 * Mutable and reused: the decoder fills it without allocating.
 */
public final class OpenVpnHeader {
    /** ACK ids a packet can carry: RELIABLE_ACK_SIZE 8 (src/openvpn/reliable.h). */
    public static final int MAX_ACKS = 8;

    public enum Kind {
        /** A reliability-layer packet with its message packet-id (resets, P_CONTROL_V1, WKC). */
        CONTROL,
        /** P_ACK_V1: ACKs only. */
        ACK,
        /** P_DATA_V1 / P_DATA_V2. */
        DATA,
        /** A tls-crypt control packet: opcode, session id and replay id readable, the rest encrypted. */
        OPAQUE,
        /** The packet ends inside the header (snap length or a short datagram). */
        TRUNCATED,
        /** Impossible contents: unknown opcode, ACK count above 8. */
        MALFORMED
    }

    public Kind kind;
    /** Why decoding stopped, for TRUNCATED and MALFORMED; a constant string. */
    public String reason;

    public int opcode;
    public int keyId;
    /** Sender's session id (control, ACK and opaque packets). */
    public long sessionId;
    /** P_DATA_V2 peer id (24 bits), -1 otherwise. */
    public int peerId;

    public int ackCount;
    public final long[] ackIds = new long[MAX_ACKS];
    /** The peer's session id that follows a non-empty ACK array; valid when ackCount > 0. */
    public long remoteSessionId;
    /** Message packet-id of a CONTROL packet, -1 otherwise. */
    public long messagePacketId;
    /** The wrapping the packet was read with (its flow's, detected or configured). */
    public OpenVpnWire layout;
    /** Bytes after the header (the TLS records of a control packet, the ciphertext of a data packet). */
    public int payloadLength;

    void reset() {
        kind = null;
        reason = null;
        opcode = -1;
        keyId = -1;
        sessionId = 0;
        peerId = -1;
        ackCount = 0;
        remoteSessionId = 0;
        messagePacketId = -1;
        payloadLength = 0;
        layout = null;
    }

    /** True if this packet's ACK array carries {@code packetId}. */
    public boolean acks(long packetId) {
        for (int i = 0; i < ackCount; i++) {
            if (ackIds[i] == packetId) {
                return true;
            }
        }
        return false;
    }

    /** Session ids are printed as 16 hex digits, as OpenVPN's session_id_print() does. */
    public static String sessionIdText(long id) {
        return String.format(Locale.ROOT, "%016x", id);
    }
}
