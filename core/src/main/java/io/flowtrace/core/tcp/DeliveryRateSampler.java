package io.flowtrace.core.tcp;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * One RTT round as a delivery-rate sample, by Linux's rule (tcp_rate_gen): the sample's interval is
 * the longer of its ACK phase (the round's duration) and its send phase (from the send time of the
 * newest segment the round's first ACK delivered to that of the newest its last ACK delivered), so
 * ACKs bunched after a stall on the way back do not count as a faster link (testdata/tcp/cubic-10ms:
 * 110 kB ACKed in 10.5 ms after a 40 ms stall of the delay line, sent over 50.8 ms); and a sample
 * whose interval is shorter than the min RTT is discarded: a burst that passed a token bucket's depth
 * at line rate and was ACKed within µs says nothing about the bottleneck's rate.
 */
final class DeliveryRateSampler {
    /** Bytes cumulatively ACKed since the round began. */
    long delivered;
    /**
     * When the newest segment the round's first ACK delivered was sent (that ACK's time less its RTT
     * sample), -1 when that ACK gave no sample (Karn) or in state restored from flow-state version 4
     * or older: then the ACK phase alone is the interval.
     */
    private long startSentNanos = -1;

    /** A round begins; {@code ackedSentNanos}: when the newest segment its first ACK delivered was sent, or -1. */
    void start(long ackedSentNanos) {
        delivered = 0;
        startSentNanos = ackedSentNanos;
    }

    /** The round that began at {@code startNanos} ended at {@code nanos}: its rate, if it counts, raises the maximum. */
    void end(SlowStartStats stats, long startNanos, long nanos, long ackedSentNanos) {
        long interval = nanos - startNanos;
        if (ackedSentNanos >= 0 && startSentNanos >= 0) {
            interval = Math.max(interval, ackedSentNanos - startSentNanos);
        }
        if (interval > 0 && delivered > 0 && interval >= stats.minRttNanos) {
            stats.maxDeliveryRateBytesPerSecond =
                    Math.max(stats.maxDeliveryRateBytesPerSecond, delivered * 1e9 / interval);
        }
    }

    void writeV5(DataOutput out) throws IOException {
        Varints.write(out, startSentNanos);
    }

    void readV5(DataInput in) throws IOException {
        startSentNanos = Varints.read(in);
    }
}
