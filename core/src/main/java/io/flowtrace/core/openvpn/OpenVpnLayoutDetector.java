package io.flowtrace.core.openvpn;

/**
 * Finds how a flow's control channel is wrapped from one of its control or ACK packets, without a
 * key and without an option (docs/decoding.md, "OpenVPN wrapping"). Each candidate layout is tried
 * on the packet's bytes (src/openvpn/ssl_pkt.c write_control_auth and tls_crypt.c, OpenVPN 2.6):
 *
 * <ul>
 *   <li>plain: the byte after the session id is an ACK count of at most 8, the ACK ids and the
 *       message packet-id are small (a setup sends tens to hundreds of messages), and a P_ACK_V1
 *       ends exactly after its ACK array;
 *   <li>tls-auth with an HMAC of 16, 20, 28, 32, 48 or 64 bytes (MD5, SHA1, SHA224, SHA256,
 *       SHA384, SHA512): after the HMAC, a replay packet-id above 0 and a time within
 *       {@link #MAX_CLOCK_DISTANCE_S} of the capture's, then the plain layout's checks;
 *   <li>tls-crypt: the replay packet-id and time right after the session id, then the 32-byte tag
 *       and at least one encrypted byte; P_CONTROL_HARD_RESET_CLIENT_V3 and P_CONTROL_WKC_V1 exist
 *       only with tls-crypt-v2.
 * </ul>
 *
 * A packet decides for a wrapped layout when exactly one wrapped candidate fits, else for plain
 * when the plain layout fits. A wrapped candidate fits a packet of another layout only by chance:
 * it reads HMAC, ciphertext or TLS bytes as a replay packet-id below 2^24 (1 in 256 random
 * values) and a time near the capture's (about 2 %), or plain zeros as a replay packet-id (which
 * must be above 0); the plain reading fits any packet whose first bytes after the session id are
 * small (tls-crypt's replay packet-id and time read as an empty ACK array and a message
 * packet-id), so it is the last resort.
 * Data packets carry no session header and never decide.
 */
public final class OpenVpnLayoutDetector {
    /** Not decided by this packet (a data packet, too short, or no or several candidates fit). */
    public static final int UNDECIDED = -2;
    /** tls-crypt (or tls-crypt-v2). */
    public static final int TLS_CRYPT = -1;
    /** No wrapping. */
    public static final int PLAIN = 0;

    /** HMAC sizes of the digests --auth accepts for tls-auth. */
    static final int[] TLS_AUTH_DIGESTS = {20, 32, 64, 16, 28, 48};
    /**
     * How far the replay time (the sender's clock when its packet-id sequence started, seconds)
     * may be from the capture time: sessions run for days; clocks differ by far less than a year.
     */
    public static final long MAX_CLOCK_DISTANCE_S = 400L * 86_400;
    /** Message and ACK packet-ids of a key state stay far below this (one per control message). */
    static final long MAX_PLAUSIBLE_ID = 1L << 20;

    /**
     * A session's replay packet-ids count its control-channel packets (one per packet sent, from 1):
     * a setup sends tens to hundreds, a renegotiation as many again.
     */
    static final long MAX_PLAUSIBLE_REPLAY_ID = 1L << 24;

    private static final int SESSION_ID = 8;
    private static final int REPLAY = 8;
    private static final int TAG = 32;

    private OpenVpnLayoutDetector() {}

    /**
     * The layout {@code b[off, off + min(captured, length))} (one OpenVPN packet of {@code length}
     * bytes captured at {@code timeNanos}) fits alone: {@link #PLAIN}, {@link #TLS_CRYPT}, the
     * tls-auth HMAC size, or {@link #UNDECIDED}.
     */
    public static int detect(byte[] b, int off, int captured, int length, long timeNanos) {
        int end = off + Math.min(captured, length);
        if (end - off < 1 + SESSION_ID + 1) {
            return UNDECIDED;
        }
        int op = (b[off] & 0xff) >>> 3;
        if (op == OpenVpnOpcode.HARD_RESET_CLIENT_V3 || op == OpenVpnOpcode.CONTROL_WKC_V1) {
            return TLS_CRYPT;
        }
        boolean control = OpenVpnOpcode.isReliableControl(op);
        if (!control && op != OpenVpnOpcode.ACK_V1) {
            return UNDECIDED;
        }
        boolean complete = captured >= length;
        long seconds = Math.floorDiv(timeNanos, 1_000_000_000L);
        int start = off + 1 + SESSION_ID;
        int wrapped = UNDECIDED;
        int fits = 0;
        for (int d : TLS_AUTH_DIGESTS) {
            int p = start + d;
            if (replayFits(b, p, end, seconds) && clearFits(b, p + REPLAY, end, control, complete, off + length)) {
                wrapped = d;
                fits++;
            }
        }
        if (replayFits(b, start, end, seconds) && length >= 1 + SESSION_ID + REPLAY + TAG + 1) {
            wrapped = TLS_CRYPT;
            fits++;
        }
        if (fits > 0) {
            return fits == 1 ? wrapped : UNDECIDED;
        }
        return clearFits(b, start, end, control, complete, off + length) ? PLAIN : UNDECIDED;
    }

    /** A replay packet-id above 0 and a replay time near the capture's at {@code p}. */
    private static boolean replayFits(byte[] b, int p, int end, long seconds) {
        if (p + REPLAY > end) {
            return false;
        }
        long id = u32(b, p);
        long time = u32(b, p + 4);
        return id > 0 && id < MAX_PLAUSIBLE_REPLAY_ID && Math.abs(time - seconds) <= MAX_CLOCK_DISTANCE_S;
    }

    /** The clear ACK array and message packet-id at {@code p}, the packet ending at {@code packetEnd}. */
    private static boolean clearFits(byte[] b, int p, int end, boolean control, boolean complete, int packetEnd) {
        if (p + 1 > end) {
            return false;
        }
        int acks = b[p++] & 0xff;
        if (acks > OpenVpnHeader.MAX_ACKS) {
            return false;
        }
        int need = 4 * acks + (acks > 0 ? SESSION_ID : 0) + (control ? 4 : 0);
        if (p + need > end) {
            return false;
        }
        for (int i = 0; i < acks; i++, p += 4) {
            if (u32(b, p) >= MAX_PLAUSIBLE_ID) {
                return false;
            }
        }
        if (acks > 0) {
            p += SESSION_ID;
        }
        if (!control) {
            return !complete || p == packetEnd; // a P_ACK_V1 carries nothing after its ACK array
        }
        return u32(b, p) < MAX_PLAUSIBLE_ID;
    }

    private static long u32(byte[] b, int p) {
        return ((long) (b[p] & 0xff) << 24) | ((b[p + 1] & 0xff) << 16) | ((b[p + 2] & 0xff) << 8) | (b[p + 3] & 0xff);
    }
}
