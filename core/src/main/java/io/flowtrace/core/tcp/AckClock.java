package io.flowtrace.core.tcp;

/**
 * Whether a sender had data waiting during one round, as a tap sees it: a window-limited sender is
 * clocked by its ACKs (each advancing ACK answered by a new segment at once, the pipe never empty
 * for long), an application- or send-buffer-limited one leaves an ACK unanswered or the pipe idle.
 * The stuck-window rule ({@link CwndStuckRule}) asks it at each round's end.
 */
final class AckClock {
    /**
     * A new segment leaving this soon after an advancing ACK was clocked out by it: the sender had data
     * waiting. At the sender's tap a window-limited Linux sender answers an ACK 20–60 µs later
     * (testdata/tcp/cwnd-locked: median 25 µs, 90th percentile 58 µs).
     */
    static final long ANSWER_NANOS = 100_000L;

    /** The last advancing ACK has not been answered by a new segment yet. */
    boolean awaitingSend;
    /** The pipe sat empty for longer than {@link #ANSWER_NANOS} in this round: nothing waited to be sent. */
    boolean idle;
    /** Advancing ACKs in this round, and how many a new segment followed within {@link #ANSWER_NANOS}. */
    int acks;

    int answeredAcks;
    long lastAckNanos = -1;

    /** The cumulative ACK advanced (counted in the round that is current after it). */
    void onAdvancingAck(long nanos) {
        lastAckNanos = nanos;
        acks++;
        awaitingSend = true;
    }

    /** A segment of new data left. */
    void onNewSegment(long nanos) {
        if (awaitingSend) {
            awaitingSend = false;
            if (nanos - lastAckNanos <= ANSWER_NANOS) {
                answeredAcks++;
            }
        }
    }

    /** New data left after the pipe had been empty (everything ACKed) for {@code idleNanos}. */
    void onPipeIdle(long idleNanos) {
        if (idleNanos > ANSWER_NANOS) {
            idle = true;
        }
    }

    void startRound() {
        acks = 0;
        answeredAcks = 0;
        idle = false;
    }

    /** Every advancing ACK of the round was answered at once and the pipe never sat empty. */
    boolean dataWaiting() {
        return acks > 0 && answeredAcks == acks && !idle;
    }
}
