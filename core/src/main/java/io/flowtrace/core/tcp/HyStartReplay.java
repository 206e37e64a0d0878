package io.flowtrace.core.tcp;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * CUBIC's HyStart (tcp_cubic.c, cubictcp_acked and hystart_update, Linux ≥ 5.8) replayed on the
 * ACKs a capture saw, with its own rounds exactly as the kernel keeps them: a round restarts at the
 * first ACK whose cumulative ACK passes the highest sequence sent when the round began
 * (bictcp_hystart_reset: round_start = last_ack = now, end_seq = snd_nxt). The kernel runs it in
 * slow start with cwnd ≥ hystart_low_window, until it fires once.
 */
final class HyStartReplay {
    /** hystart_low_window = 16 segments (tcp_cubic.c). */
    static final int LOW_WINDOW = 16;
    /** hystart_ack_delta_us = 2000: ACKs at most this far apart continue a train (tcp_cubic.c). */
    private static final long ACK_DELTA_NANOS = 2_000_000L;
    /** HYSTART_MIN_SAMPLES = 8 RTT samples per round before the delay test runs. */
    private static final int MIN_SAMPLES = 8;
    /** HYSTART_DELAY_THRESH: clamp(delay_min / 8, 4 ms, 16 ms) (HYSTART_DELAY_MIN/MAX, tcp_cubic.c). */
    private static final long DELAY_MIN_NANOS = 4_000_000L;

    private static final long DELAY_MAX_NANOS = 16_000_000L;
    /** hystart_ack_delay: min(1 ms, 4 × gso_max_size at the pacing rate) is added to delay_min. */
    private static final long ACK_DELAY_MAX_NANOS = 1_000_000L;

    private static final long GSO_MAX_SIZE = 65_536;
    /** Linux paces slow start at 200 % of cwnd/srtt (tcp_update_pacing_rate, sysctl_tcp_pacing_ss_ratio). */
    private static final double SLOW_START_PACING_RATIO = 2.0;

    private long endSeq = -1;
    private long roundStartNanos;
    private long lastTrainAckNanos;
    private long currRtt = Long.MAX_VALUE;
    private int sampleCount;
    /**
     * The window grew on after a signal of this replay: the sender does not run HyStart (the kernel's
     * fires once and sets ssthresh, after which slow start is over). A later signal still marks where
     * growth stopped (BBR's bandwidth plateau), but a loss in its own round is the exit (Reno).
     */
    private boolean refuted;

    void refute() {
        refuted = true;
    }

    boolean refuted() {
        return refuted;
    }

    /**
     * One ACK that moved the cumulative ACK to {@code ack}, with its Karn-valid RTT sample or -1.
     *
     * @param cwnd the sender's window estimate in bytes before this ACK (the kernel tests its cwnd
     *     before the ACK grows it)
     * @param delayMin the smallest RTT sample so far (the kernel's delay_min)
     * @return the test that fired, or null
     */
    SlowStartExitCause onSampledAck(
            long nanos, long ack, long nextSeq, long rtt, long cwnd, long mss, long delayMin, long srtt) {
        if (endSeq < 0 || ack > endSeq) {
            endSeq = nextSeq;
            roundStartNanos = nanos;
            lastTrainAckNanos = nanos;
            currRtt = Long.MAX_VALUE;
            sampleCount = 0;
        }
        if (mss <= 0 || cwnd < LOW_WINDOW * mss || delayMin <= 0) {
            return null;
        }
        if (nanos - lastTrainAckNanos <= ACK_DELTA_NANOS) {
            lastTrainAckNanos = nanos;
            double pacingRate = SLOW_START_PACING_RATIO * cwnd * 1e9 / Math.max(srtt, 1);
            long ackDelay = (long) Math.min(ACK_DELAY_MAX_NANOS, 4 * GSO_MAX_SIZE * 1e9 / pacingRate);
            // halved for a sender without pacing (SK_PACING_NONE, CUBIC's default without fq)
            long threshold = (delayMin + ackDelay) / 2;
            if (nanos - roundStartNanos > threshold) {
                return SlowStartExitCause.ACK_TRAIN;
            }
        }
        if (rtt < 0) {
            return null; // no sample: nothing for the delay test
        }
        currRtt = Math.min(currRtt, rtt);
        if (sampleCount < MIN_SAMPLES) {
            sampleCount++;
        } else if (currRtt > delayMin + Math.max(DELAY_MIN_NANOS, Math.min(DELAY_MAX_NANOS, delayMin / 8))) {
            return SlowStartExitCause.DELAY;
        }
        return null;
    }

    void write(DataOutput out) throws IOException {
        Varints.write(out, endSeq);
        Varints.write(out, roundStartNanos);
        Varints.write(out, lastTrainAckNanos);
        Varints.write(out, currRtt);
        Varints.write(out, sampleCount);
    }

    void read(DataInput in) throws IOException {
        endSeq = Varints.read(in);
        roundStartNanos = Varints.read(in);
        lastTrainAckNanos = Varints.read(in);
        currRtt = Varints.read(in);
        sampleCount = (int) Varints.read(in);
    }

    void writeV4(DataOutput out) throws IOException {
        out.writeBoolean(refuted);
    }

    void readV4(DataInput in) throws IOException {
        refuted = in.readBoolean();
    }
}
