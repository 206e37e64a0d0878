package io.flowtrace.core.tcp;

import java.util.Locale;

/** Why a sender left slow start; docs/metrics.md gives each rule. */
public enum SlowStartExitCause {
    /** A retransmission ended it (loss recovery sets ssthresh: RFC 5681 §3.1). */
    LOSS,
    /** CUBIC HyStart delay-increase test (tcp_cubic.c, hystart_update). */
    DELAY,
    /** CUBIC HyStart ACK-train test (tcp_cubic.c, hystart_update). */
    ACK_TRAIN,
    /** Growth stopped at the receiver's advertised window and never exited otherwise. */
    RWND_LIMITED,
    /** Growth stopped without loss, HyStart signal or window limit: the sender did not fill its window. */
    APP_LIMITED,
    /** The flow ended still in slow start. */
    NONE;

    public String jsonName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
