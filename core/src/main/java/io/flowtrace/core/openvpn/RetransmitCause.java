package io.flowtrace.core.openvpn;

import java.util.Locale;

/**
 * Why OpenVPN 2.6 sent a message packet-id again (src/openvpn/reliable.c, reliable_send and
 * reliable_send_purge; ssl.c for the server's stateless reset answer).
 */
public enum RetransmitCause {
    /**
     * The entry's timer expired: 2 s initial timeout, doubled on every send. Timers count whole
     * seconds (time_t "now" in reliable.c), so a resend less than {@link #MIN_TIMER_GAP_NANOS}
     * after the previous copy is never timer-driven.
     */
    TIMEOUT,
    /**
     * Sent before its timer because the peer ACKed at least {@link #LATER_ACKS_FOR_EARLY} later
     * packet-ids since the last copy (N_ACK_RETRANSMIT, reliable.h; every ACK id in every packet
     * counts, repeated ones too, as reliable_send_purge counts them), or less than a second after
     * the previous copy (the ACKs that triggered it may not be visible at this capture point).
     */
    EARLY_AFTER_LATER_ACKS,
    /**
     * The server repeats its P_CONTROL_HARD_RESET_SERVER_V2 because the client repeated its reset:
     * the answer is stateless, not timer-driven.
     */
    RESET_ANSWER;

    /** N_ACK_RETRANSMIT in src/openvpn/reliable.h. */
    public static final int LATER_ACKS_FOR_EARLY = 3;
    /** One tick of OpenVPN's one-second timer: the shortest gap a timer-driven resend can have. */
    public static final long MIN_TIMER_GAP_NANOS = 1_000_000_000L;

    public String jsonName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
