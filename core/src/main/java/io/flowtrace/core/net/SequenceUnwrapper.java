package io.flowtrace.core.net;

/**
 * Turns 32-bit TCP sequence numbers into 64-bit offsets that keep growing across wraps
 * (RFC 9293 §3.4: comparisons are modulo 2^32). Each value is placed at the 64-bit position
 * nearest to the last one seen, so any step of less than 2^31 in either direction is exact.
 */
public final class SequenceUnwrapper {
    private long last;
    private boolean started;

    /** Starts the sequence space at {@code seq32} (the ISN, or the first sequence number seen). */
    public void start(long seq32) {
        last = seq32 & 0xffffffffL;
        started = true;
    }

    public boolean started() {
        return started;
    }

    /** The unwrapped 64-bit value of {@code seq32}; advances the reference when it moves forward. */
    public long unwrap(long seq32) {
        if (!started) {
            start(seq32);
            return last;
        }
        long value = peek(seq32);
        if (value > last) {
            last = value;
        }
        return value;
    }

    /** The unwrapped value without moving the reference (for ACK numbers and SACK edges). */
    public long peek(long seq32) {
        int delta = (int) ((seq32 & 0xffffffffL) - (last & 0xffffffffL));
        return last + delta;
    }

    public long last() {
        return last;
    }

    public void restore(long last, boolean started) {
        this.last = last;
        this.started = started;
    }
}
