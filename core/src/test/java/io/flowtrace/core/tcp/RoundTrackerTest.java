package io.flowtrace.core.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

/**
 * The round tracker's rules on their edges (docs/metrics.md, Slow start and rounds), driven the way
 * TcpFlowAnalyzer drives it: a sender whose segments (1,000 B, the peer's MSS), cumulative ACKs,
 * SACKs and advertised window the test sets as RetransmissionClassifier and AckProcessor would. A
 * round ends at the first ACK at or past the highest sequence sent when it began (HyStart's end_seq,
 * tcp_cubic.c); the first begins at the SYN-ACK. Every round, flight, exit and flag expected below is
 * worked out in the test's comment from the rule it cites; each test kills mutants that survived the
 * suite (docs/metrics.md, Mutation scores). Times in the comments are in ms from the SYN.
 */
class RoundTrackerTest {
    private static final long MSS = 1000;
    private static final long US = 1000;
    private static final long MS = 1_000_000L;

    /** One sender as TcpFlowAnalyzer drives its RoundTracker. */
    private static final class Sender {
        final SenderState s = new SenderState();
        final RoundTracker r = s.rounds;
        final SlowStartStats stats = r.stats;
        final List<TcpFlowEvent> events = new ArrayList<>();
        /** The first SYN's capture time, -1 without one. */
        final long firstSyn;

        Sender(long firstSyn) {
            this.firstSyn = firstSyn;
            s.peerMss = (int) MSS;
        }

        /** SYN at sequence 0; the SYN-ACK at {@code nanos} ACKs it and begins the first round (end_seq 1). */
        Sender handshake(long nanos) {
            s.synSeen = true;
            s.sentAnything = true;
            s.nextSeq = 1;
            ack(nanos, 1);
            return this;
        }

        /** A capture that began mid-flow: the sender's bytes numbered from 0, a first ACK of 0 at {@code nanos}. */
        Sender midFlow(long nanos) {
            s.sentAnything = true;
            ack(nanos, 0);
            return this;
        }

        /** {@code n} new segments 1 µs apart from {@code nanos}; the time of the last. */
        long send(long nanos, int n) {
            for (int i = 0; i < n; i++) {
                sendBytes(nanos + i * US, MSS);
            }
            return nanos + (n - 1) * US;
        }

        void sendBytes(long nanos, long bytes) {
            if (s.stats.firstDataNanos < 0) {
                s.stats.firstDataNanos = nanos;
            }
            s.stats.maxSegmentBytes = (int) Math.max(s.stats.maxSegmentBytes, bytes);
            s.unacked.append(s.nextSeq, s.nextSeq + bytes, nanos, -1);
            s.nextSeq += bytes;
            r.onSend(s, nanos, s.inFlight(), null, firstSyn, events::add, true);
        }

        void resend(long nanos, RetransmissionClass trigger) {
            r.onSend(s, nanos, s.inFlight(), trigger, firstSyn, events::add, true);
        }

        void ack(long nanos, long seq) {
            ack(nanos, seq, -1);
        }

        /** The peer's cumulative ACK of {@code seq}, with its RTT sample ({@code rtt}, -1: none, Karn). */
        void ack(long nanos, long seq, long rtt) {
            long previous = s.ackSeen ? s.ackedUpTo : seq;
            s.unacked.ackTo(seq);
            if (rtt >= 0) {
                s.addRttSample(rtt);
            }
            s.ackedUpTo = seq;
            s.ackSeen = true;
            s.lastPeerAckNanos = nanos;
            r.onAckAdvance(s, nanos, previous, seq, firstSyn, events::add, true);
        }

        /** The peer SACKs segments {@code from} to {@code to} (1,000 B each, numbered from 1 after the SYN). */
        void sack(int from, int to) {
            s.unacked.sack(1 + (from - 1) * MSS, 1 + to * MSS);
        }

        /**
         * Rounds of the given sizes: each round's segments 1 µs apart from 1 µs after the ACK that ended
         * the last one (from {@code nanos} for the first), ACKed together 500 µs after the last; the
         * time of the last ACK. One ACK per round: HyStart's ACK train never runs (each ACK begins its
         * own HyStart round) and its delay test never sees 8 samples in a round.
         */
        long rounds(long nanos, int... segments) {
            long t = nanos;
            for (int n : segments) {
                t = send(t + US, n) + 500 * US;
                ack(t, s.nextSeq);
            }
            return t;
        }

        void settle() {
            r.settle(s, firstSyn, events::add, true);
        }

        List<TcpFlowEvent.SlowStartExit> exits() {
            return events.stream()
                    .filter(e -> e instanceof TcpFlowEvent.SlowStartExit)
                    .map(e -> (TcpFlowEvent.SlowStartExit) e)
                    .toList();
        }

        List<TcpFlowEvent.Round> roundEvents() {
            return events.stream()
                    .filter(e -> e instanceof TcpFlowEvent.Round)
                    .map(e -> (TcpFlowEvent.Round) e)
                    .toList();
        }
    }

    private static TcpFlowEvent.SlowStartExit exit(long nanos, SlowStartExitCause reason, long cwnd, long sinceSyn) {
        return new TcpFlowEvent.SlowStartExit(nanos, true, reason, cwnd, sinceSyn);
    }

    /**
     * A round of at least hystart_low_window = 16 segments that grew less than 1.25x is a candidate
     * exit (app_limited) and, nothing contradicting it, stands when the flow ends. Rounds of 16 and 16
     * segments: the second ends at its ACK (t) as a candidate of 16,000 B; settled, the exit is there,
     * t since the SYN at 0. Rounds of 15 and 15: too small, no exit.
     */
    @Test
    void aStopOfGrowthAtSixteenSegmentsIsACandidateThatStandsAtTheEnd() {
        Sender x = new Sender(0).handshake(MS);
        long t = x.rounds(MS, 16, 16);
        assertThat(x.r.inSlowStart()).isTrue();
        assertThat(x.exits()).isEmpty();
        x.settle();
        assertThat(x.exits()).containsExactly(exit(t, SlowStartExitCause.APP_LIMITED, 16_000, t));
        assertThat(x.stats.exitReason).isEqualTo(SlowStartExitCause.APP_LIMITED);
        assertThat(x.stats.exitCwndBytes).isEqualTo(16_000);

        Sender small = new Sender(0).handshake(MS);
        small.rounds(MS, 15, 15);
        small.settle();
        assertThat(small.exits()).isEmpty();
        assertThat(small.stats.exitNanos).isEqualTo(-1);
    }

    /**
     * Growth of exactly 1.25x is growth: 16 then 20 segments (20,000 = 1.25 x 16,000) is still slow
     * start, no candidate, no exit. 16 then 19 is not: a candidate of max(19,000, 16,000) B at the
     * second round's ACK.
     */
    @Test
    void growthOfExactlyAQuarterIsStillSlowStart() {
        Sender x = new Sender(0).handshake(MS);
        x.rounds(MS, 16, 20);
        x.settle();
        assertThat(x.exits()).isEmpty();
        assertThat(x.r.inSlowStart()).isTrue();

        Sender y = new Sender(0).handshake(MS);
        long t = y.rounds(MS, 16, 19);
        y.settle();
        assertThat(y.exits()).containsExactly(exit(t, SlowStartExitCause.APP_LIMITED, 19_000, t));
    }

    /**
     * A candidate becomes the exit after CONFIRM_ROUNDS = 2 later rounds the congestion window held;
     * a receive-window-limited round does not count. Candidate at t2 (16 and 16 segments, 16,000 B);
     * then 4 segments against a window of 4,000 B (4,000 + 1 MSS > 4,000: the receive window's round,
     * no age); 5 segments (5,000 >= 1.25 x 4,000: grew, so only its age says anything: 1); 7 segments
     * (7,000 >= 6,250, age 2): the exit, with the candidate's time and cwnd. None of these flights
     * passes 1.125 x 16,000 + 2 MSS = 20,000 B, which would refute it.
     */
    @Test
    void aCandidateIsConfirmedByTwoRoundsTheWindowHeld() {
        Sender x = new Sender(0).handshake(MS);
        long t2 = x.rounds(MS, 16, 16);
        x.s.peerWindowBytes = 4_000;
        long t3 = x.rounds(t2, 4);
        x.s.peerWindowBytes = 1 << 30;
        long t4 = x.rounds(t3, 5);
        assertThat(x.r.inSlowStart()).isTrue();
        x.rounds(t4, 7);
        assertThat(x.r.inSlowStart()).isFalse();
        assertThat(x.exits()).containsExactly(exit(t2, SlowStartExitCause.APP_LIMITED, 16_000, t2));
        assertThat(x.stats.rwndLimitedSeen).isFalse();
    }

    /**
     * A flight beyond 1.125 x the candidate's cwnd + 2 MSS refutes it; up to that it stands. Candidate
     * 16,000 B at t2: the bound is 18,000 + 2,000 = 20,000 B. A round of 20 segments reaches 20,000
     * exactly (grew 1.25x: age 1), the next of 20 does not grow: the candidate is the exit (t2,
     * 16,000 B). A round of 21 segments refutes it (21,000 > 20,000); the next 21 stops growing: a new
     * candidate of 21,000 B at its ACK t4, the exit once settled.
     */
    @Test
    void aCandidateIsRefutedOnlyByAFlightBeyondAnEighthAndTwoSegmentsMore() {
        Sender x = new Sender(0).handshake(MS);
        long t2 = x.rounds(MS, 16, 16);
        x.rounds(t2, 20, 20);
        assertThat(x.exits()).containsExactly(exit(t2, SlowStartExitCause.APP_LIMITED, 16_000, t2));

        Sender y = new Sender(0).handshake(MS);
        long u2 = y.rounds(MS, 16, 16);
        long t4 = y.rounds(u2, 21, 21);
        assertThat(y.r.inSlowStart()).isTrue();
        y.settle();
        assertThat(y.exits()).containsExactly(exit(t4, SlowStartExitCause.APP_LIMITED, 21_000, t4));
        assertThat(y.r.hyStart.refuted()).isFalse(); // an application-limited candidate is no HyStart signal
    }

    /**
     * A loss retransmission (fast or RTO) after a candidate confirms it at once: the exit came before
     * the loss. Candidate at t2 (16,000 B), 4 segments out, a fast retransmission: the exit is the
     * candidate's, there and then. A tail-loss probe instead sets no ssthresh: still slow start.
     */
    @Test
    void aLossAfterACandidateIsTheCandidatesExitAtOnce() {
        Sender x = new Sender(0).handshake(MS);
        long t2 = x.rounds(MS, 16, 16);
        long sent = x.send(t2 + US, 4);
        x.resend(sent + 100 * US, RetransmissionClass.FAST);
        assertThat(x.r.inSlowStart()).isFalse();
        assertThat(x.exits()).containsExactly(exit(t2, SlowStartExitCause.APP_LIMITED, 16_000, t2));

        Sender y = new Sender(0).handshake(MS);
        long u2 = y.rounds(MS, 16, 16);
        y.resend(y.send(u2 + US, 4) + 100 * US, RetransmissionClass.TLP);
        assertThat(y.r.inSlowStart()).isTrue();
        assertThat(y.exits()).isEmpty();
    }

    /**
     * After a refuted HyStart signal (the sender grew on: it does not run HyStart), a loss in a round
     * whose flight is at least 1.25x the last round's is the exit (Reno), not the pending candidate.
     * Candidate 16,000 B at t2; 20 segments out (20,000 = 1.25 x 16,000, and not beyond the 20,000 B
     * that would refute it); a fast retransmission at tl: loss at tl, cwnd min(largest flight 20,000,
     * growth bound 16,000 + 32,000 ACKed) = 20,000 B. With 19 segments out (19,000 < 20,000) the window
     * had stopped doubling: the candidate is the exit.
     */
    @Test
    void aLossWhileTheWindowStillDoublesAfterARefutedSignalIsTheExit() {
        Sender x = new Sender(0).handshake(MS);
        long t2 = x.rounds(MS, 16, 16);
        x.r.hyStart.refute();
        long tl = x.send(t2 + US, 20) + 100 * US;
        x.resend(tl, RetransmissionClass.FAST);
        assertThat(x.exits()).containsExactly(exit(tl, SlowStartExitCause.LOSS, 20_000, tl));

        Sender y = new Sender(0).handshake(MS);
        long u2 = y.rounds(MS, 16, 16);
        y.r.hyStart.refute();
        y.resend(y.send(u2 + US, 19) + 100 * US, RetransmissionClass.FAST);
        assertThat(y.exits()).containsExactly(exit(u2, SlowStartExitCause.APP_LIMITED, 16_000, u2));
    }

    /**
     * The loss exit's cwnd is the largest flight in slow start, capped by what slow start can have
     * grown the window to: the first burst (or RFC 6928's 10 segments if larger) plus every byte
     * ACKed (RFC 5681 §3.1). A first burst of 16 segments, all ACKed (16,000 B), then 40 segments out
     * and a fast retransmission: min(40,000, 16,000 + 16,000) = 32,000 B. Without the SYN the bytes
     * ACKed before the capture are unknown: no cap, 40,000 B; and the first round, begun at an ACK of
     * sequence 0, ends at the next ACK past 0 (1 round).
     */
    @Test
    void theLossExitsCwndIsCappedByTheFirstBurstPlusTheBytesAcked() {
        Sender x = new Sender(0).handshake(MS);
        long t1 = x.rounds(MS, 16);
        long tl = x.send(t1 + US, 40) + 100 * US;
        x.resend(tl, RetransmissionClass.FAST);
        assertThat(x.exits()).containsExactly(exit(tl, SlowStartExitCause.LOSS, 32_000, tl));

        Sender y = new Sender(-1).midFlow(MS);
        long u1 = y.rounds(MS, 16);
        assertThat(y.stats.rounds).isEqualTo(1);
        long ul = y.send(u1 + US, 40) + 100 * US;
        y.resend(ul, RetransmissionClass.FAST);
        assertThat(y.exits()).containsExactly(exit(ul, SlowStartExitCause.LOSS, 40_000, -1));
    }

    /**
     * The first burst is what left before any ACK came back. The SYN-ACK at 1 ms, segment 1 at 2 ms,
     * its ACK stamped 2 ms too (the same microsecond), then 29 segments: the first burst was 1
     * segment, so the cap is RFC 6928's 10 segments + 1,000 B ACKed = 11,000 B, under the 29,000 B
     * flight at the fast retransmission.
     */
    @Test
    void sendsAfterAnAckInTheSameMicrosecondAreNotTheFirstBurst() {
        Sender x = new Sender(0).handshake(MS);
        x.send(2 * MS, 1);
        x.ack(2 * MS, 1001);
        long tl = x.send(2 * MS + US, 29) + 100 * US;
        x.resend(tl, RetransmissionClass.FAST);
        assertThat(x.exits()).containsExactly(exit(tl, SlowStartExitCause.LOSS, 11_000, tl));
    }

    /**
     * A round is receive-window-limited when a flight + 1 MSS exceeded the peer's window. Rounds of 4
     * segments against a window of 5,000 B (4,000 + 1,000 = 5,000, not more): held by the congestion
     * window (each ACK answered within 1 µs, window full at the end): after three, 3 stuck rounds.
     * Against 4,999 B: 3 receive-window-limited small rounds, none stuck.
     */
    @Test
    void aFlightOneMssBelowThePeersWindowIsNotWindowLimited() {
        Sender x = new Sender(0).handshake(MS);
        x.s.peerWindowBytes = 5_000;
        x.rounds(MS, 4, 4, 4);
        assertThat(x.stats.cwndStuckRounds).isEqualTo(3);
        assertThat(x.stats.rwndLimitedSmallRounds).isZero();
        assertThat(x.stats.rwndLimitedSeen).isFalse();

        Sender y = new Sender(0).handshake(MS);
        y.s.peerWindowBytes = 4_999;
        y.rounds(MS, 4, 4, 4);
        assertThat(y.stats.cwndStuckRounds).isZero();
        assertThat(y.stats.rwndLimitedSmallRounds).isEqualTo(3);
        assertThat(y.stats.rwndLimitedSeen).isTrue();
    }

    /**
     * A closed window holds the sender: after a round of 4 segments ACKed with a window of 0, a probe
     * of one new byte 200 ms later (RFC 9293 §3.8.6.1; 1 + 1 MSS > 0) and its ACK end a round that did
     * not grow and was limited by the receive window: slow start stopped at the receiver's window.
     */
    @Test
    void aProbeIntoAClosedWindowIsAReceiveWindowLimitedRound() {
        Sender x = new Sender(0).handshake(MS);
        x.s.peerWindowBytes = 1 << 30;
        long t1 = x.rounds(MS, 4);
        x.s.peerWindowBytes = 0;
        x.sendBytes(t1 + 200 * MS, 1);
        x.ack(t1 + 200 * MS + 500 * US, x.s.nextSeq);
        assertThat(x.stats.rounds).isEqualTo(2);
        assertThat(x.stats.rwndLimitedSeen).isTrue();
        assertThat(x.stats.appLimitedSeen).isFalse();
        assertThat(x.stats.exitNanos).isEqualTo(-1);
    }

    /**
     * A round begun after the pipe drained (everything ACKed) and sat idle for at least the min RTT is
     * the application's: it does not grow, yet it is no candidate exit. RTT 500 µs (the min RTT);
     * 16 segments, their ACK, a pause of exactly 500 µs, 16 more: application-limited, no exit. With
     * a pause of 499 µs the second round is the window's: a candidate (16,000 B at its ACK), the exit.
     */
    @Test
    void aPipeIdleForTheMinRttMakesTheRoundTheApplications() {
        for (long pause : new long[] {500 * US, 499 * US}) {
            Sender x = new Sender(0).handshake(MS);
            long last = x.send(MS + US, 16);
            long t1 = last + 500 * US;
            x.ack(t1, x.s.nextSeq, 500 * US);
            last = x.send(t1 + pause, 16);
            long t2 = last + 500 * US;
            x.ack(t2, x.s.nextSeq, 500 * US);
            x.settle();
            assertThat(x.stats.minRttNanos).isEqualTo(500 * US);
            if (pause == 500 * US) {
                assertThat(x.stats.appLimitedSeen).as("pause %d ns", pause).isTrue();
                assertThat(x.exits()).as("pause %d ns", pause).isEmpty();
            } else {
                assertThat(x.stats.appLimitedSeen).as("pause %d ns", pause).isFalse();
                assertThat(x.exits())
                        .as("pause %d ns", pause)
                        .containsExactly(exit(t2, SlowStartExitCause.APP_LIMITED, 16_000, t2));
            }
        }
    }

    /**
     * The path's min RTT: a data→ACK sample under a quarter of the handshake's RTT is the receiver's
     * ACK delay, and the handshake's RTT counts instead. Handshake 400 µs: a sample of exactly 100 µs
     * is a round trip (100 µs), 99.999 µs is not (400 µs), 200 µs is (200 µs). A sample of 0 (the ACK
     * in the same microsecond, no handshake) is the smallest, and stays so after one of 5 µs.
     */
    @Test
    void aSampleOfAQuarterOfTheHandshakeRttIsARoundTrip() {
        assertThat(minRttAfter(400 * US, 100 * US)).isEqualTo(100 * US);
        assertThat(minRttAfter(400 * US, 99_999)).isEqualTo(400 * US);
        assertThat(minRttAfter(400 * US, 200 * US)).isEqualTo(200 * US);
        assertThat(minRttAfter(-1, 0, 5 * US)).isZero();
    }

    private static long minRttAfter(long pathRtt, long... samples) {
        RoundTracker r = new RoundTracker();
        for (long rtt : samples) {
            r.onRttSample(rtt, pathRtt);
        }
        return r.stats.minRttNanos;
    }

    /**
     * Each round event carries its flight, its smallest RTT over its first 8 samples (as HyStart's
     * HYSTART_MIN_SAMPLES), -1 without one, and the bytes ACKed in it. Segments 1-9 sent at 1.001 to
     * 1.009 ms, segment 10 at 1.250; ACK of 1 at 1.601 (RTT 600 µs) ends round 1 (10,000 B out, 1
     * sample, 1,000 B ACKed); ACKs of 2-9 at 1.602-1.609 (600 µs each) and of 10 at 1.650 (400 µs, the
     * 9th sample) end round 2 (it began with 9,000 B out; min over its first 8: 600 µs; 9,000 B); one
     * more segment at 1.651, ACKed at 2.151 without a sample: round 3 (1,000 B, -1, 1,000 B).
     */
    @Test
    void aRoundsMinRttIsTheSmallestOfItsFirstEightSamples() {
        Sender x = new Sender(0).handshake(MS);
        x.send(MS + US, 9);
        x.sendBytes(1_250 * US, MSS);
        x.ack(1_601 * US, 1001, 600 * US);
        for (int k = 2; k <= 9; k++) {
            x.ack(1_600 * US + k * US, 1 + k * MSS, 600 * US);
        }
        x.ack(1_650 * US, 10_001, 400 * US);
        x.sendBytes(1_651 * US, MSS);
        x.ack(2_151 * US, 11_001);
        assertThat(x.roundEvents())
                .containsExactly(
                        new TcpFlowEvent.Round(1_601 * US, true, 1, 10_000, 600 * US, 1_000),
                        new TcpFlowEvent.Round(1_650 * US, true, 2, 9_000, 600 * US, 9_000),
                        new TcpFlowEvent.Round(2_151 * US, true, 3, 1_000, -1, 1_000));
    }

    /**
     * The exit event's time since the first SYN: a fast retransmission at 2 ms with 4 segments out
     * (loss, min(4,000, 10 segments + 0 ACKed) = 4,000 B) is 1.9 ms after a SYN at 0.1 ms and 2 ms
     * after a SYN at capture time 0; without a SYN (a capture begun mid-flow, whose first round began
     * at an ACK of sequence 0) it is -1.
     */
    @Test
    void theExitEventCountsItsTimeFromTheFirstSyn() {
        for (long syn : new long[] {100 * US, 0}) {
            Sender x = new Sender(syn).handshake(MS);
            x.send(MS + US, 4);
            x.resend(2 * MS, RetransmissionClass.FAST);
            assertThat(x.exits()).containsExactly(exit(2 * MS, SlowStartExitCause.LOSS, 4_000, 2 * MS - syn));
        }
        Sender y = new Sender(-1).midFlow(MS);
        y.send(MS + US, 4);
        y.resend(2 * MS, RetransmissionClass.FAST);
        assertThat(y.exits()).containsExactly(exit(2 * MS, SlowStartExitCause.LOSS, 4_000, -1));
    }

    /**
     * An exit at capture time 0 (a trace timed from its first packet) is an exit like any other: the
     * sender has left slow start, and a later RTO does not end it again.
     */
    @Test
    void anExitAtCaptureTimeZeroEndsSlowStart() {
        Sender x = new Sender(0).handshake(0);
        for (int i = 0; i < 4; i++) {
            x.sendBytes(0, MSS);
        }
        x.resend(0, RetransmissionClass.FAST);
        assertThat(x.r.inSlowStart()).isFalse();
        x.resend(US, RetransmissionClass.RTO);
        assertThat(x.exits()).containsExactly(exit(0, SlowStartExitCause.LOSS, 4_000, 0));
        assertThat(x.stats.exitNanos).isZero();
    }

    /**
     * The stuck-window rule asks whether the window was full when the round ended: the flight just
     * before its ending ACK, SACKed segments out. First round 5 segments, ACKed together (window full:
     * 1 run). Second round 5 segments (6-10, 5,000 B out); the peer SACKs 7, 9 and 10; the ACK of 6-7
     * ends the round with 10,001 - 5,001 - 2,000 (9 and 10 still SACKed) = 3,000 B out: 2 x 3,000 + 1
     * MSS < 2 x 5,000, not full although each ACK was answered at once: an application-limited small
     * round (1), none stuck.
     */
    @Test
    void theWindowAtARoundsEndLeavesSackedSegmentsOut() {
        Sender x = new Sender(0).handshake(MS);
        long t1 = x.rounds(MS, 5);
        long last = x.send(t1 + US, 5);
        x.sack(7, 7);
        x.sack(9, 10);
        x.ack(last + 400 * US, 7_001);
        assertThat(x.stats.rounds).isEqualTo(2);
        assertThat(x.stats.appLimitedSmallRounds).isEqualTo(1);
        assertThat(x.stats.cwndStuckRounds).isZero();
        assertThat(x.roundEvents().get(1).flightBytes()).isEqualTo(5_000);
    }

    /**
     * HyStart tests the flight before the ACK, SACKed segments out (tcp_cubic.c tests the kernel's
     * cwnd; docs/metrics.md estimates it so). 16 segments sent from 1.001 ms, segment 16 SACKed ahead
     * of the rest; the ACK of 1 at 1.201 ms (RTT 200 µs: delay_min and srtt) begins HyStart's round; the
     * ACK of 2 at 1.901 ms comes 700 µs into it, past the train's threshold ((200 µs + min(1 ms, 4 x
     * 65,536 B at 2 x 16,000 B / 200 µs = 1.64 ms)) / 2 = 600 µs), but 16,001 - 1,001 - 1,000 SACKed =
     * 14,000 B is under hystart_low_window (16 segments): no ACK-train exit. With 18 segments sent and
     * 18 SACKed the flight is 16,000 B: the train fires at 1.901 ms with cwnd 16,000 B.
     */
    @Test
    void hyStartLeavesSackedSegmentsOutOfTheWindowItTests() {
        for (int sent : new int[] {16, 18}) {
            Sender x = new Sender(0).handshake(MS);
            x.send(MS + US, sent);
            x.sack(sent, sent);
            x.ack(1_201 * US, 1001, 200 * US);
            x.ack(1_901 * US, 2001);
            x.settle();
            if (sent == 16) {
                assertThat(x.exits()).isEmpty();
            } else {
                assertThat(x.exits())
                        .containsExactly(exit(1_901 * US, SlowStartExitCause.ACK_TRAIN, 16_000, 1_901 * US));
            }
        }
    }

    /**
     * The delivery-rate sample spans the longer of its ACK phase and its send phase (tcp_rate_gen),
     * the send times from the RTT samples of the round's first and last ACK, a sample of 0 included.
     * A receiver-side tap, handshake RTT 1 ms (the min RTT: samples under 250 µs are ACK delay).
     * Segment 1 at 1.001 ms, ACKed at 2.001 (RTT 1 ms): round 1, 1,000 B over its 1.001 ms ACK phase.
     * Segments 2-5 at 2.002-2.005, ACKed at 2.005 in the same microsecond (RTT 0): 4,000 B, ACK phase
     * 4 µs, send phase 2.005 - 1.001 = 1.004 ms: 4,000 B / 1.004 ms, the largest.
     */
    @Test
    void aRateSampleTakesTheSendPhaseFromRttSamplesOfZeroToo() {
        Sender x = new Sender(0).handshake(MS);
        x.s.pathRttNanos = MS;
        x.send(MS + US, 1);
        x.ack(2_001 * US, 1001, MS);
        long last = x.send(2_002 * US, 4);
        x.ack(last, 5001, 0);
        assertThat(x.stats.minRttNanos).isEqualTo(MS);
        assertThat(x.stats.maxDeliveryRateBytesPerSecond).isCloseTo(4_000 / 1.004e-3, Offset.offset(1e-6));
    }

    /**
     * Flow state: the last byte of the version-1 state holds the round's flags (retransmitted 1,
     * receive-window-limited 2, application-limited 4, pipe drained 8); version 3's flags byte, after
     * the first burst and the stuck rule's three values, the ACK clock's (ACK awaiting a send 1, pipe
     * idle 2). A round of 4 segments ACKed with a window of 0 (drained, the ACK not yet answered),
     * then a spurious resend into that window: retransmitted, limited by the receive window (0 + 1 MSS
     * > 0), drained: 1 + 2 + 8 = 11; ACK awaiting a send: 1. Read back, the same bytes.
     */
    @Test
    void theStateFlagsAreTheRoundsAndTheClocks() throws IOException {
        Sender x = new Sender(0).handshake(MS);
        x.s.peerWindowBytes = 1 << 30;
        long t1 = x.rounds(MS, 4);
        x.s.peerWindowBytes = 0;
        x.resend(t1 + 300 * MS, RetransmissionClass.SPURIOUS);
        byte[] v1 = StateBytes.of(x.r::write);
        assertThat(v1[v1.length - 1]).isEqualTo((byte) 11);
        byte[] v3 = StateBytes.of(x.r::writeV3);
        DataInputStream in = StateBytes.in(v3);
        for (int i = 0; i < 4; i++) {
            Varints.read(in);
        }
        assertThat(in.readByte()).isEqualTo((byte) 1);

        RoundTracker back = new RoundTracker();
        back.read(StateBytes.in(v1));
        back.readV3(StateBytes.in(v3));
        assertThat(StateBytes.of(back::write)).isEqualTo(v1);
        assertThat(StateBytes.of(back::writeV3)).isEqualTo(v3);
    }
}
