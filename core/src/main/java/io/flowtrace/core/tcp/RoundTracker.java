package io.flowtrace.core.tcp;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * RTT rounds of one sender and what they say about its congestion window. A round ends when the
 * cumulative ACK passes the highest sequence sent when the round began (HyStart's end_seq,
 * tcp_cubic.c); the round's largest flight is its cwnd estimate. On top of the rounds: the
 * slow-start exit (when growth stops and why, with CUBIC's HyStart tests replayed on the ACKs the
 * capture saw), the delivery rate ({@link DeliveryRateSampler}) and BDP, and rounds where the window is stuck at a few segments
 * although the sender has data ({@link CwndStuckRule}; docs/design.md, Stuck cwnd).
 */
final class RoundTracker {
    /**
     * Slow start doubles the window per round (RFC 5681 §3.1) and congestion avoidance adds one
     * segment; measured rounds are bursty (delayed ACKs, TSO), so growth below ×1.25 counts as stopped.
     */
    private static final double SLOW_START_GROWTH = 1.25;
    /** After ssthresh, congestion avoidance grows cwnd ≤ 1 MSS (Reno) or a few % (CUBIC) per round. */
    private static final double CANDIDATE_GROWTH = 1.125;
    /** Rounds the congestion window held (no rwnd or application limit) that confirm a candidate exit. */
    static final int CONFIRM_ROUNDS = 2;
    /** Per-round RTT statistics (the round event's min RTT) use the first 8 samples, as HyStart does. */
    private static final int ROUND_RTT_SAMPLES = 8;
    /** RFC 6928's largest initial window, in segments (Linux TCP_INIT_CWND). */
    private static final int INITIAL_WINDOW_SEGMENTS = 10;

    final SlowStartStats stats = new SlowStartStats();
    /** Package-private for flow-state version 4 (SenderState.writeV4). */
    final HyStartReplay hyStart = new HyStartReplay();
    /** The ACK's RTT sample, -1 if none (inside a TSO/GSO super-segment: it still runs the ACK train). */
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

    /** The round's delivery-rate sample; package-private for flow-state version 5 (SenderState.writeV5). */
    final DeliveryRateSampler rate = new DeliveryRateSampler();
    /**
     * Flight of the first burst, sent before any ACK of data came back: the initial window (or less).
     * {@link #UNKNOWN} in state restored from a version without it.
     */
    private long initialBurstFlight;

    private static final long UNKNOWN = Long.MAX_VALUE / 4;

    private final AckClock clock = new AckClock();
    private final CwndStuckRule stuck = new CwndStuckRule();
    private boolean roundRetransmitted;
    private boolean roundRwndLimited;
    private boolean roundAppLimited;
    private boolean drained;
    private long drainedAtNanos;
    private int roundRttSamples;
    private long roundMinRtt = Long.MAX_VALUE;
    /**
     * An exit not yet confirmed (docs/metrics.md, slow_start.exit): HyStart fired, or growth stopped
     * (app_limited); its time and cwnd. {@code candidateAge}: rounds the congestion window held since.
     */
    private SlowStartExitCause candidate;

    private long candidateNanos;
    private long candidateCwnd;
    private int candidateAge;

    boolean inSlowStart() {
        return stats.exitNanos < 0;
    }

    /**
     * A segment (new or retransmitted) left; {@code flight} is the sender's flight after it.
     *
     * @param trigger what sent it when it was a retransmission (RetransmissionClassifier's decision), else null
     */
    void onSend(
            SenderState s,
            long nanos,
            long flight,
            RetransmissionClass trigger,
            long firstSynNanos,
            TcpEventSink events,
            boolean fromClient) {
        boolean retransmission = trigger != null;
        if (flight > roundMaxFlight) {
            roundMaxFlight = flight;
        }
        if (!retransmission && s.lastPeerAckNanos < s.stats.firstDataNanos) {
            initialBurstFlight = Math.max(initialBurstFlight, flight);
        }
        if (!retransmission && inSlowStart()) {
            slowStartMaxFlight = Math.max(slowStartMaxFlight, flight);
            if (candidate != null && flight > CANDIDATE_GROWTH * candidateCwnd + 2 * s.segmentSize()) {
                // the window kept growing (Reno doubling, an rwnd opening): slow start went on, and a
                // sender that grows on after a HyStart signal does not run HyStart
                if (candidate != SlowStartExitCause.APP_LIMITED) {
                    hyStart.refute();
                }
                candidate = null;
            }
        }
        // -1 until the peer advertised a window; a closed one (0) holds the sender too: a probe of one
        // new byte into it (RFC 9293 §3.8.6.1; Linux probes with an old byte instead) is no growth
        if (s.peerWindowBytes >= 0 && flight + s.segmentSize() > s.peerWindowBytes) {
            roundRwndLimited = true;
        }
        if (drained && !retransmission) {
            long idle = nanos - drainedAtNanos;
            if (stats.minRttNanos > 0 && idle >= stats.minRttNanos) {
                roundAppLimited = true; // the pipe emptied and nothing was sent for an RTT: nothing to send
            }
            clock.onPipeIdle(idle);
            drained = false;
        }
        if (!retransmission) {
            clock.onNewSegment(nanos);
        }
        if (retransmission) {
            roundRetransmitted = true;
            // only loss recovery (fast retransmit, RTO) sets ssthresh; a tail-loss probe does not
            boolean recovery = trigger == RetransmissionClass.FAST || trigger == RetransmissionClass.RTO;
            if (inSlowStart() && roundEndSeq >= 0 && recovery) {
                boolean stillDoubling = roundMaxFlight >= SLOW_START_GROWTH * prevRoundMaxFlight;
                if (candidate != null && (candidateAge > 0 || !hyStart.refuted() || !stillDoubling)) {
                    // the exit came before the loss; unless the sender ignored an earlier HyStart signal
                    // and its window was still doubling when this one fired (Reno; BBR's plateau stops)
                    exit(candidate, candidateNanos, candidateCwnd, s, firstSynNanos, events, fromClient);
                } else {
                    exit(
                            SlowStartExitCause.LOSS,
                            nanos,
                            Math.min(slowStartMaxFlight, slowStartGrowthBound(s)),
                            s,
                            firstSynNanos,
                            events,
                            fromClient);
                }
            }
        }
    }

    /** A data→ACK RTT sample (Karn-filtered) arrived; {@code pathRtt} is the handshake's, -1 if unknown. */
    void onRttSample(long rtt, long pathRtt) {
        // Under a quarter of the handshake's loop it is no round trip: the tap is next to the receiver
        // and sees only its ACK delay (testdata/tcp/short-http.receiver: 2-6 µs against 39-7,533 µs);
        // the path's min RTT is then the handshake's (Linux's min_rtt holds the SYN's sample too).
        long pathSample = pathRtt > 0 && rtt < pathRtt / 4 ? pathRtt : rtt;
        if (stats.minRttNanos < 0 || pathSample < stats.minRttNanos) {
            stats.minRttNanos = pathSample;
        }
        if (roundRttSamples < ROUND_RTT_SAMPLES) {
            roundRttSamples++;
            roundMinRtt = Math.min(roundMinRtt, rtt);
        }
        pendingRtt = rtt;
    }

    /** The cumulative ACK advanced from {@code previous} to {@code ack}. */
    void onAckAdvance(
            SenderState s,
            long nanos,
            long previous,
            long ack,
            long firstSynNanos,
            TcpEventSink events,
            boolean fromClient) {
        // the RTT sample is the newest segment this ACK covered (Karn-filtered): its send time
        long ackedSentNanos = pendingRtt >= 0 ? nanos - pendingRtt : -1;
        rate.delivered += Math.max(0, ack - previous);
        if (ack >= s.nextSeq) {
            drained = true;
            drainedAtNanos = nanos;
        }
        if (inSlowStart() && (candidate == null || candidate == SlowStartExitCause.APP_LIMITED)) {
            // HyStart (what sets ssthresh) replaces an unconfirmed stop of growth. It tests cwnd
            // before this ACK grows it: the flight just before the ACK, or the round's largest
            long cwnd = Math.max(Math.max(0, s.nextSeq - previous - s.sackedOutBytes()), roundMaxFlight);
            // HyStart's delay_min: the smallest data→ACK sample itself, as the kernel's
            long delayMin = s.stats.rtt.count() > 0 ? s.stats.rtt.min() : -1;
            long srtt = s.srttNanos > 0 ? s.srttNanos : delayMin;
            SlowStartExitCause fired =
                    hyStart.onSampledAck(nanos, ack, s.nextSeq, pendingRtt, cwnd, s.segmentSize(), delayMin, srtt);
            if (fired != null) {
                setCandidate(fired, nanos, cwnd);
            }
        }
        pendingRtt = -1;
        if (roundEndSeq < 0) {
            startRound(s, nanos, ackedSentNanos);
        } else if (ack >= roundEndSeq) {
            rate.end(stats, roundStartNanos, nanos, ackedSentNanos);
            endRound(
                    s,
                    nanos,
                    Math.max(0, s.nextSeq - previous - s.sackedOutBytes()),
                    firstSynNanos,
                    events,
                    fromClient);
            startRound(s, nanos, ackedSentNanos);
        }
        clock.onAdvancingAck(nanos);
    }

    /**
     * The most slow start can have grown the window to by now: the initial window (RFC 6928's 10
     * segments, or the first burst if it was larger) plus every byte cumulatively ACKed, since slow
     * start adds at most the data each ACK delivers (RFC 5681 §3.1; Linux tcp_slow_start adds the
     * ACKed segments, and only on ACKs that advance snd_una, tcp_may_raise_cwnd). The flight can
     * exceed it: SACKed segments stay outstanding on the wire while the sender no longer counts them
     * (testdata/tcp/short-lowrtt: 13 segments outstanding at a kernel cwnd of 11, 2 of them SACKed).
     * Without the SYN the ACKed bytes before the capture are unknown, and there is no bound.
     */
    private long slowStartGrowthBound(SenderState s) {
        if (!s.synSeen || initialBurstFlight >= UNKNOWN) {
            return Long.MAX_VALUE;
        }
        return Math.max(INITIAL_WINDOW_SEGMENTS * s.segmentSize(), initialBurstFlight) + Math.max(0, s.ackedUpTo - 1);
    }

    private void startRound(SenderState s, long nanos, long ackedSentNanos) {
        roundEndSeq = s.nextSeq;
        roundStartNanos = nanos;
        rate.start(ackedSentNanos);
        prevRoundMaxFlight = Math.max(roundMaxFlight, 0);
        roundMaxFlight = s.inFlight();
        roundRetransmitted = false;
        roundRwndLimited = false;
        roundAppLimited = false;
        roundRttSamples = 0;
        roundMinRtt = Long.MAX_VALUE;
        clock.startRound();
    }

    /** @param flightAtEnd the flight just before the ACK that ended the round */
    private void endRound(
            SenderState s, long nanos, long flightAtEnd, long firstSynNanos, TcpEventSink events, boolean fromClient) {
        stats.rounds++;
        stats.maxCwndBytes = Math.max(stats.maxCwndBytes, roundMaxFlight);
        if (!inSlowStart()) {
            stats.maxCwndAfterExitBytes = Math.max(stats.maxCwndAfterExitBytes, roundMaxFlight);
        }
        long mss = s.segmentSize();
        stuck.onRoundEnd(
                stats, mss, roundMaxFlight, flightAtEnd, clock.dataWaiting(), roundRwndLimited, roundRetransmitted);
        if (events != TcpEventSink.NONE) { // no allocation per round when nobody listens
            events.accept(new TcpFlowEvent.Round(
                    nanos,
                    fromClient,
                    stats.rounds,
                    roundMaxFlight,
                    roundRttSamples > 0 ? roundMinRtt : -1,
                    rate.delivered));
        }
        boolean grew = prevRoundMaxFlight <= 0 || roundMaxFlight >= SLOW_START_GROWTH * prevRoundMaxFlight;
        if (inSlowStart() && candidate != null) {
            if (!roundRwndLimited && !roundAppLimited) { // a round the congestion window held
                candidateAge++;
                if (!grew || candidateAge >= CONFIRM_ROUNDS) {
                    exit(candidate, candidateNanos, candidateCwnd, s, firstSynNanos, events, fromClient);
                }
            }
        } else if (inSlowStart() && !grew) {
            if (roundRwndLimited) {
                stats.rwndLimitedSeen = true;
            } else if (roundAppLimited) {
                stats.appLimitedSeen = true;
            } else if (roundMaxFlight >= HyStartReplay.LOW_WINDOW * mss) {
                // an exit if later rounds confirm it (growth often resumes after an rwnd-limited round)
                setCandidate(SlowStartExitCause.APP_LIMITED, nanos, Math.max(roundMaxFlight, prevRoundMaxFlight));
            }
        }
    }

    /** The flow ended: a candidate exit nothing contradicted is the exit. */
    void settle(SenderState s, long firstSynNanos, TcpEventSink events, boolean fromClient) {
        if (inSlowStart() && candidate != null) {
            exit(candidate, candidateNanos, candidateCwnd, s, firstSynNanos, events, fromClient);
        }
    }

    private void setCandidate(SlowStartExitCause reason, long nanos, long cwnd) {
        candidate = reason;
        candidateNanos = nanos;
        candidateCwnd = cwnd;
        candidateAge = 0;
    }

    private void exit(
            SlowStartExitCause reason,
            long nanos,
            long cwnd,
            SenderState s,
            long firstSynNanos,
            TcpEventSink events,
            boolean fromClient) {
        stats.exitReason = reason;
        stats.exitNanos = nanos;
        stats.exitCwndBytes = cwnd;
        candidate = null;
        events.accept(new TcpFlowEvent.SlowStartExit(
                nanos, fromClient, reason, cwnd, firstSynNanos >= 0 ? nanos - firstSynNanos : -1));
    }

    void write(DataOutput out) throws IOException {
        stats.write(out);
        long[] v = {
            roundEndSeq,
            roundStartNanos,
            roundMaxFlight,
            prevRoundMaxFlight,
            rate.delivered,
            drainedAtNanos,
            roundRttSamples,
            roundMinRtt,
            clock.lastAckNanos,
            candidateNanos,
            candidateCwnd,
            candidateAge,
            clock.acks,
            clock.answeredAcks
        };
        for (long x : v) {
            Varints.write(out, x);
        }
        out.writeByte(candidate == null ? -1 : candidate.ordinal());
        out.writeByte((roundRetransmitted ? 1 : 0)
                | (roundRwndLimited ? 2 : 0)
                | (roundAppLimited ? 4 : 0)
                | (drained ? 8 : 0));
    }

    void read(DataInput in) throws IOException {
        stats.read(in);
        roundEndSeq = Varints.read(in);
        roundStartNanos = Varints.read(in);
        roundMaxFlight = Varints.read(in);
        prevRoundMaxFlight = Varints.read(in);
        slowStartMaxFlight = Math.max(roundMaxFlight, prevRoundMaxFlight); // version 1 state: the old estimate
        rate.delivered = Varints.read(in);
        drainedAtNanos = Varints.read(in);
        roundRttSamples = (int) Varints.read(in);
        roundMinRtt = Varints.read(in);
        clock.lastAckNanos = Varints.read(in);
        candidateNanos = Varints.read(in);
        candidateCwnd = Varints.read(in);
        candidateAge = (int) Varints.read(in);
        clock.acks = (int) Varints.read(in);
        clock.answeredAcks = (int) Varints.read(in);
        initialBurstFlight = UNKNOWN; // version 1 and 2 state: no growth bound for this flow
        int c = in.readByte();
        candidate = c < 0 ? null : SlowStartExitCause.values()[c];
        int bits = in.readByte();
        roundRetransmitted = (bits & 1) != 0;
        roundRwndLimited = (bits & 2) != 0;
        roundAppLimited = (bits & 4) != 0;
        drained = (bits & 8) != 0;
    }

    /** State added in flow-state version 2 (FlowStateCodec), written after every version-1 field. */
    void writeV2(DataOutput out) throws IOException {
        Varints.write(out, slowStartMaxFlight);
        hyStart.write(out);
    }

    void readV2(DataInput in) throws IOException {
        slowStartMaxFlight = Varints.read(in);
        hyStart.read(in);
    }

    /** State added in flow-state version 3 (FlowStateCodec): the growth bound and the stuck-window rule. */
    void writeV3(DataOutput out) throws IOException {
        Varints.write(out, initialBurstFlight);
        stuck.write(out);
        out.writeByte((clock.awaitingSend ? 1 : 0) | (clock.idle ? 2 : 0));
        stats.writeV3(out);
    }

    void readV3(DataInput in) throws IOException {
        initialBurstFlight = Varints.read(in);
        stuck.read(in);
        int bits = in.readByte();
        clock.awaitingSend = (bits & 1) != 0;
        clock.idle = (bits & 2) != 0;
        stats.readV3(in);
    }
}
