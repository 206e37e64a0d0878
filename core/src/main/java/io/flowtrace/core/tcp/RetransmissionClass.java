package io.flowtrace.core.tcp;

import java.util.Locale;

/**
 * Why a segment was sent again, in the terms of the sender's loss recovery (RFC 6298 RTO,
 * RFC 5681/6675 fast retransmit, RFC 8985 tail-loss probe). The rules are in docs/metrics.md.
 */
public enum RetransmissionClass {
    /** Retransmission timeout: no ACK progress for at least the RTO floor, or sent in the Loss episode that followed. */
    RTO,
    /** Fast retransmit / SACK recovery: the receiver signalled the hole with duplicate ACKs or SACK blocks. */
    FAST,
    /** The range had already been cumulatively ACKed when it was sent again. */
    SPURIOUS,
    /** Tail-loss probe: the highest segment resent early with no loss signal from the receiver. */
    TLP,
    /** None of the above (e.g. a RACK early retransmit of a middle segment without loss signal). */
    OTHER;

    public String jsonName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
