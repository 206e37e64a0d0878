package io.flowtrace.core.tcp;

/**
 * RTT rounds of one sender and what they say about its congestion window. A round ends when the
 * cumulative ACK passes the highest sequence sent when the round began (HyStart's end_seq,
 * tcp_cubic.c); the round's largest flight is its cwnd estimate. On top of the rounds: the
 * slow-start exit (when growth stops and why, with CUBIC's HyStart tests replayed on the ACKs the
 * capture saw), the delivery rate and BDP, and rounds where the window is stuck at a few segments
 * although the sender has data (docs/design.md, Stuck cwnd).
 */
final class RoundTracker {
    /**
     * Slow start doubles the window per round (RFC 5681 §3.1) and congestion avoidance adds one
     * segment; measured rounds are bursty (delayed ACKs, TSO), so growth below ×1.25 counts as stopped.
     */
    private static final double SLOW_START_GROWTH = 1.25;
    /** A send within this long after an advancing ACK was clocked out by it (the sender had data waiting). */
    private static final long ACK_CLOCK_NANOS = 50_000L;
    /** Per-round RTT statistics (the round event's min RTT) use the first 8 samples, as HyStart does. */
    private static final int ROUND_RTT_SAMPLES = 8;
    /** Seed 004: BBR's cwnd stuck "around 6 segments" without GSO. */
    static final int STUCK_SEGMENTS = 6;

    final SlowStartStats stats = new SlowStartStats();
    private final HyStartReplay hyStart = new HyStartReplay();
    /**
     * The RTT sample of the ACK being processed, -1 if it gave none. The kernel calls HyStart only for
     * sampled ACKs, but it samples every ACK of new data; the capture misses samples where an ACK
     * ends inside a TSO/GSO super-segment, so unsampled ACKs still run the ACK-train test.
     */
    private long pendingRtt = -1;

    private long roundEndSeq = -1;
    private long roundStartNanos;
    private long roundMaxFlight;
    private long prevRoundMaxFlight;
    /**
     * Largest flight since the flow began, while still in slow start: the cwnd at a loss exit.
     * Slow start only grows cwnd, so the largest flight before the first loss retransmission is the
     * window the sender reached; the rounds just before a loss can be µs long and hold 1–3 segments.
     */
    private long slowStartMaxFlight;
    private long roundDelivered;
    private boolean roundRetransmitted;
    private boolean roundRwndLimited;
    private boolean roundAppLimited;
    private boolean drained;
    private int roundSends;
    private int roundClockedSends;
    private long drainedAtNanos;
    private int roundRttSamples;
    private long roundMinRtt = Long.MAX_VALUE;
    private long lastAckNanos = -1;
    /**
     * HyStart fired and nothing has contradicted it yet: its reason, time and cwnd then. It becomes
     * the exit when growth stops, when a loss retransmission follows, or when the flow ends; growth of
     * ×1.25 in a later round refutes it (the sender is not CUBIC, or the replay misfired).
     */
    private SlowStartExitReason candidate;
    private long candidateNanos;
    private long candidateCwnd;
    private int candidateAge;

    boolean inSlowStart() {
        return stats.exitNanos < 0;
    }

    /** A segment (new or retransmitted) left; {@code flight} is the sender's flight after it. */
    void onSend(SenderState s, long nanos, long flight, boolean retransmission, long firstSynNanos, TcpEventSink events,
            boolean fromClient) {
        if (flight > roundMaxFlight) {
            roundMaxFlight = flight;
        }
        if (!retransmission && inSlowStart()) {
            slowStartMaxFlight = Math.max(slowStartMaxFlight, flight);
            if (candidate != null && flight > SLOW_START_GROWTH * candidateCwnd + 2 * mss(s)) {
                // the window kept growing after the signal (a Reno sender doubles within the round):
                // HyStart did not set ssthresh there
                candidate = null;
            }
        }
        if (s.peerWindowBytes > 0 && flight + mss(s) > s.peerWindowBytes) {
            roundRwndLimited = true;
        }
        if (drained && !retransmission) {
            long idle = nanos - drainedAtNanos;
            if (stats.minRttNanos > 0 && idle >= stats.minRttNanos) {
                roundAppLimited = true; // the pipe emptied and nothing was sent for an RTT: nothing to send
            }
            drained = false;
        }
        roundSends++;
        if (lastAckNanos >= 0 && nanos - lastAckNanos <= ACK_CLOCK_NANOS) {
            roundClockedSends++;
        }
        if (retransmission) {
            roundRetransmitted = true;
            // only loss recovery (fast retransmit, RTO) sets ssthresh; a tail-loss probe does not
            boolean recovery = s.lastTrigger == RetransmissionClass.FAST || s.lastTrigger == RetransmissionClass.RTO;
            if (inSlowStart() && roundEndSeq >= 0 && recovery) {
                if (candidate != null) {
                    // HyStart had already set ssthresh: the loss comes after the exit
                    exit(candidate, candidateNanos, candidateCwnd, s, firstSynNanos, events, fromClient);
                } else {
                    exit(SlowStartExitReason.LOSS, nanos, slowStartMaxFlight, s, firstSynNanos, events, fromClient);
                }
            }
        }
    }

    /** A data→ACK RTT sample (Karn-filtered) arrived. */
    void onRttSample(long rtt) {
        if (stats.minRttNanos < 0 || rtt < stats.minRttNanos) {
            stats.minRttNanos = rtt;
        }
        if (roundRttSamples < ROUND_RTT_SAMPLES) {
            roundRttSamples++;
            roundMinRtt = Math.min(roundMinRtt, rtt);
        }
        pendingRtt = rtt;
    }

    /** The cumulative ACK advanced from {@code previous} to {@code ack}. */
    void onAckAdvance(SenderState s, long nanos, long previous, long ack, long firstSynNanos, TcpEventSink events,
            boolean fromClient) {
        roundDelivered += Math.max(0, ack - previous);
        if (ack >= s.nextSeq) {
            drained = true;
            drainedAtNanos = nanos;
        }
        if (inSlowStart() && candidate == null) {
            // HyStart tests cwnd before this ACK grows it: the flight just before the ACK, or the
            // round's largest flight if that was larger
            long cwnd = Math.max(Math.max(0, s.nextSeq - previous - s.sackedOutBytes()), roundMaxFlight);
            long srtt = s.srttNanos > 0 ? s.srttNanos : stats.minRttNanos;
            SlowStartExitReason fired = hyStart.onSampledAck(nanos, ack, s.nextSeq, pendingRtt, cwnd, mss(s),
                    stats.minRttNanos, srtt);
            if (fired != null) {
                setCandidate(fired, nanos, cwnd);
            }
        }
        pendingRtt = -1;
        lastAckNanos = nanos;
        if (roundEndSeq < 0) {
            startRound(s, nanos);
            return;
        }
        if (ack >= roundEndSeq) {
            endRound(s, nanos, firstSynNanos, events, fromClient);
            startRound(s, nanos);
        }
    }

    private void startRound(SenderState s, long nanos) {
        roundEndSeq = s.nextSeq;
        roundStartNanos = nanos;
        prevRoundMaxFlight = Math.max(roundMaxFlight, 0);
        roundMaxFlight = s.inFlight();
        roundDelivered = 0;
        roundRetransmitted = false;
        roundRwndLimited = false;
        roundAppLimited = false;
        roundRttSamples = 0;
        roundMinRtt = Long.MAX_VALUE;
        roundSends = 0;
        roundClockedSends = 0;
    }

    private void endRound(SenderState s, long nanos, long firstSynNanos, TcpEventSink events, boolean fromClient) {
        stats.rounds++;
        long duration = nanos - roundStartNanos;
        if (duration > 0 && roundDelivered > 0) {
            stats.maxDeliveryRateBytesPerSecond = Math.max(stats.maxDeliveryRateBytesPerSecond,
                    roundDelivered * 1e9 / duration);
        }
        stats.maxCwndBytes = Math.max(stats.maxCwndBytes, roundMaxFlight);
        if (!inSlowStart()) {
            stats.maxCwndAfterExitBytes = Math.max(stats.maxCwndAfterExitBytes, roundMaxFlight);
        }
        long mss = mss(s);
        // stuck: after slow start (before it, small flights are slow start itself), a few segments in
        // flight although the sender had data waiting (its sends were ACK-clocked). A sender limited by
        // its own CPU looks the same from the wire; docs/metrics.md says so.
        if (!inSlowStart() && mss > 0 && roundMaxFlight <= STUCK_SEGMENTS * mss && roundMaxFlight > 0
                && !roundRwndLimited && !roundAppLimited && !roundRetransmitted && roundSends > 0
                && roundClockedSends * 4 >= roundSends * 3) {
            stats.cwndStuckRounds++;
        }
        if (events != TcpEventSink.NONE) { // no allocation per round when nobody listens
            events.accept(new TcpEvent.Round(nanos, fromClient, stats.rounds, roundMaxFlight,
                    roundRttSamples > 0 ? roundMinRtt : -1, roundDelivered));
        }
        boolean grew = prevRoundMaxFlight <= 0 || roundMaxFlight >= SLOW_START_GROWTH * prevRoundMaxFlight;
        if (inSlowStart() && candidate != null) {
            if (candidateAge == 0) {
                if (!grew) {
                    exit(candidate, candidateNanos, candidateCwnd, s, firstSynNanos, events, fromClient);
                }
            } else {
                exit(candidate, candidateNanos, candidateCwnd, s, firstSynNanos, events, fromClient);
            }
            candidateAge++;
        } else if (inSlowStart() && !grew) {
            if (roundRwndLimited) {
                stats.rwndLimitedSeen = true;
            } else if (roundAppLimited) {
                stats.appLimitedSeen = true;
            } else if (roundMaxFlight >= HyStartReplay.LOW_WINDOW * mss) {
                exit(SlowStartExitReason.APP_LIMITED, nanos, Math.max(roundMaxFlight, prevRoundMaxFlight), s,
                        firstSynNanos, events, fromClient);
            }
        }
    }

    /** The flow ended: a HyStart signal nothing contradicted is the exit. */
    void settle(SenderState s, long firstSynNanos, TcpEventSink events, boolean fromClient) {
        if (inSlowStart() && candidate != null) {
            exit(candidate, candidateNanos, candidateCwnd, s, firstSynNanos, events, fromClient);
        }
    }

    private void setCandidate(SlowStartExitReason reason, long nanos, long cwnd) {
        candidate = reason;
        candidateNanos = nanos;
        candidateCwnd = cwnd;
        candidateAge = 0;
    }

    private void exit(SlowStartExitReason reason, long nanos, long cwnd, SenderState s, long firstSynNanos,
            TcpEventSink events, boolean fromClient) {
        stats.exitReason = reason;
        stats.exitNanos = nanos;
        stats.exitCwndBytes = cwnd;
        candidate = null;
        events.accept(new TcpEvent.SlowStartExit(nanos, fromClient, reason, cwnd, firstSynNanos >= 0 ? nanos - firstSynNanos : -1));
    }

    /** The sender's segment size: the peer's announced MSS less 12 bytes of timestamps, or the largest seen. */
    static long mss(SenderState s) {
        long largest = s.stats.maxSegmentBytes;
        if (s.peerMss > 0) {
            long m = s.peerMss - (s.usesTimestamps ? 12 : 0);
            return largest > 0 ? Math.min(m, largest) : m;
        }
        return largest;
    }

    void write(java.io.DataOutput out) throws java.io.IOException {
        stats.write(out);
        long[] v = {roundEndSeq, roundStartNanos, roundMaxFlight, prevRoundMaxFlight, roundDelivered, drainedAtNanos,
            roundRttSamples, roundMinRtt, lastAckNanos, candidateNanos, candidateCwnd, candidateAge, roundSends,
            roundClockedSends};
        for (long x : v) {
            Varints.write(out, x);
        }
        out.writeByte(candidate == null ? -1 : candidate.ordinal());
        out.writeByte((roundRetransmitted ? 1 : 0) | (roundRwndLimited ? 2 : 0) | (roundAppLimited ? 4 : 0)
                | (drained ? 8 : 0));
    }

    void read(java.io.DataInput in) throws java.io.IOException {
        stats.read(in);
        roundEndSeq = Varints.read(in);
        roundStartNanos = Varints.read(in);
        roundMaxFlight = Varints.read(in);
        prevRoundMaxFlight = Varints.read(in);
        slowStartMaxFlight = Math.max(roundMaxFlight, prevRoundMaxFlight); // version 1 state: the old estimate
        roundDelivered = Varints.read(in);
        drainedAtNanos = Varints.read(in);
        roundRttSamples = (int) Varints.read(in);
        roundMinRtt = Varints.read(in);
        lastAckNanos = Varints.read(in);
        candidateNanos = Varints.read(in);
        candidateCwnd = Varints.read(in);
        candidateAge = (int) Varints.read(in);
        roundSends = (int) Varints.read(in);
        roundClockedSends = (int) Varints.read(in);
        int c = in.readByte();
        candidate = c < 0 ? null : SlowStartExitReason.values()[c];
        int bits = in.readByte();
        roundRetransmitted = (bits & 1) != 0;
        roundRwndLimited = (bits & 2) != 0;
        roundAppLimited = (bits & 4) != 0;
        drained = (bits & 8) != 0;
    }

    /** State added in flow-state version 2 (FlowStateCodec), written after every version-1 field. */
    void writeV2(java.io.DataOutput out) throws java.io.IOException {
        Varints.write(out, slowStartMaxFlight);
        hyStart.write(out);
    }

    void readV2(java.io.DataInput in) throws java.io.IOException {
        slowStartMaxFlight = Varints.read(in);
        hyStart.read(in);
    }
}
