package io.flowtrace.core.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * Connection setup (RFC 9293 §3.5) on hand-made handshakes: SYNs resent after Linux's initial RTO of
 * 1 s, doubled each time (TCP_TIMEOUT_INIT); the handshake completes on the client's ACK of the
 * server's ISN + 1 (mod 2^32); setup time = that ACK - first SYN; handshake RTT = (first SYN-ACK
 * after the last SYN - last SYN) + (the ACK - last SYN-ACK). Every expected value is worked out in
 * the comment from the times given.
 */
class HandshakeTrackerTest {
    private static final long MS = 1_000_000L;
    private static final long S = 1_000 * MS;

    private final SetupStats setup = new SetupStats();
    private final HandshakeTracker hs = new HandshakeTracker(setup);

    /**
     * SYN at 0, resent at 1 s and 3 s (gaps 1 s, 2 s); SYN-ACK at 3.010 s, resent with the same ISN
     * at 4.010 s (gap 1 s); the ACK at 4.020 s. Setup 4.020 s; handshake RTT (3.010 - 3.000) +
     * (4.020 - 4.010) = 20 ms.
     */
    @Test
    void resentSynsAndSynAcksAreCountedWithTheirGaps() {
        assertThat(hs.onSyn(1000, 0)).isFalse();
        assertThat(hs.onSyn(1000, S)).isTrue();
        assertThat(hs.onSyn(1000, 3 * S)).isTrue();
        assertThat(hs.onSynAck(5000, 3 * S + 10 * MS)).isFalse();
        assertThat(hs.onSynAck(5000, 4 * S + 10 * MS)).isTrue();
        hs.onClientAck(5001, 4 * S + 20 * MS);

        assertThat(setup.synRetransmits).isEqualTo(2);
        assertThat(setup.synRetransmitGapCount).isEqualTo(2);
        assertThat(setup.synRetransmitGapsNanos).startsWith(S, 2 * S);
        assertThat(setup.synAckRetransmits).isEqualTo(1);
        assertThat(setup.synAckRetransmitGapCount).isEqualTo(1);
        assertThat(setup.synAckRetransmitGapsNanos[0]).isEqualTo(S);
        assertThat(setup.firstSynNanos).isZero();
        assertThat(setup.firstSynAckNanos).isEqualTo(3 * S + 10 * MS);
        assertThat(setup.established).isTrue();
        assertThat(setup.setupNanos).isEqualTo(4 * S + 20 * MS);
        assertThat(setup.handshakeRttNanos).isEqualTo(20 * MS);
        assertThat(hs.clientIsn()).isEqualTo(1000);
    }

    /**
     * A SYN-ACK answering an earlier SYN (at 10 ms) does not time the last one: SYN at 0, SYN-ACK at
     * 10 ms (lost before the client), SYN again at 1 s, SYN-ACK again at 1.010 s, ACK at 1.011 s:
     * RTT (1.010 - 1.000) + (1.011 - 1.010) = 11 ms; setup 1.011 s.
     */
    @Test
    void theHandshakeRttTimesTheSynAckAfterTheLastSyn() {
        hs.onSyn(1000, 0);
        hs.onSynAck(5000, 10 * MS);
        hs.onSyn(1000, S);
        hs.onSynAck(5000, S + 10 * MS);
        hs.onClientAck(5001, S + 11 * MS);

        assertThat(setup.handshakeRttNanos).isEqualTo(11 * MS);
        assertThat(setup.setupNanos).isEqualTo(S + 11 * MS);
        assertThat(setup.firstSynAckNanos).isEqualTo(10 * MS);
    }

    /**
     * A SYN-ACK with another ISN is a new answer, not a resend (its first time stays the first
     * SYN-ACK's), and only the ACK of the new ISN + 1 completes: 5001 does not, 7001 does.
     */
    @Test
    void aSynAckWithAnotherIsnIsNoResendAndMovesTheAckThatCompletes() {
        hs.onSyn(1000, 0);
        assertThat(hs.onSynAck(5000, 10 * MS)).isFalse();
        assertThat(hs.onSynAck(7000, 20 * MS)).isFalse();
        assertThat(setup.synAckRetransmits).isZero();
        assertThat(setup.firstSynAckNanos).isEqualTo(10 * MS);
        hs.onClientAck(5001, 21 * MS);
        assertThat(setup.established).isFalse();
        hs.onClientAck(7001, 22 * MS);
        assertThat(setup.established).isTrue();
        // RTT: first SYN-ACK after the SYN (10 ms) - SYN (0) + ACK (22 ms) - last SYN-ACK (20 ms) = 12 ms
        assertThat(setup.handshakeRttNanos).isEqualTo(12 * MS);
    }

    /**
     * The ACK number wraps: the server's ISN 0xffffffff is ACKed by 0. Before any SYN-ACK an ACK of
     * 0 completes nothing, and a second ACK does not move the setup time.
     */
    @Test
    void theAckOfIsnPlusOneWrapsAndOnlyTheFirstCompletes() {
        hs.onSyn(1000, 0);
        hs.onClientAck(0, 5 * MS);
        assertThat(setup.established).isFalse();
        hs.onSynAck(0xffffffffL, 10 * MS);
        hs.onClientAck(0, 11 * MS);
        hs.onClientAck(0, 50 * MS);
        assertThat(setup.established).isTrue();
        assertThat(setup.setupNanos).isEqualTo(11 * MS);
        assertThat(setup.handshakeRttNanos).isEqualTo(11 * MS); // (10 - 0) + (11 - 10)
    }

    /** Without the SYN in the capture the handshake completes, but neither setup time nor RTT is known. */
    @Test
    void withoutTheSynNeitherSetupTimeNorRttIsKnown() {
        hs.onSynAck(5000, 10 * MS);
        hs.onClientAck(5001, 11 * MS);
        assertThat(setup.established).isTrue();
        assertThat(setup.setupNanos).isEqualTo(-1);
        assertThat(setup.handshakeRttNanos).isEqualTo(-1);
    }

    /**
     * Capture time 0 is a time like any other (a capture that starts with the SYN-ACK): a SYN-ACK at
     * 0 resent with the same ISN at 1 s is a resend (gap 1 s); one with another ISN at 2 s is not,
     * and the first SYN-ACK stays the one at 0.
     */
    @Test
    void aSynAckAtCaptureTimeZeroIsTheFirst() {
        assertThat(hs.onSynAck(5000, 0)).isFalse();
        assertThat(hs.onSynAck(5000, S)).isTrue();
        assertThat(hs.onSynAck(7000, 2 * S)).isFalse();
        assertThat(setup.synAckRetransmits).isEqualTo(1);
        assertThat(setup.synAckRetransmitGapsNanos[0]).isEqualTo(S);
        assertThat(setup.firstSynAckNanos).isZero();
    }

    /**
     * SYN and SYN-ACK both at capture time 0 (the same clock tick), the SYN-ACK resent at 1 s, the
     * ACK at 1.001 s: the SYN-ACK after the last SYN is the one at 0, so the RTT is (0 - 0) +
     * (1.001 - 1.000) = 1 ms; setup 1.001 s.
     */
    @Test
    void aSynAckAtCaptureTimeZeroTimesTheHandshake() {
        hs.onSyn(1000, 0);
        hs.onSynAck(5000, 0);
        hs.onSynAck(5000, S);
        hs.onClientAck(5001, S + MS);
        assertThat(setup.handshakeRttNanos).isEqualTo(MS);
        assertThat(setup.setupNanos).isEqualTo(S + MS);
    }

    /**
     * A server ISN of 0 is an ISN like any other (ACKed by 1); setup counts from the first SYN, here
     * at 2 s: SYN-ACK at 2.010 s, ACK at 2.011 s: setup 11 ms, RTT 10 + 1 = 11 ms.
     */
    @Test
    void aServerIsnOfZeroCompletesOnAckOne() {
        hs.onSyn(1000, 2 * S);
        hs.onSynAck(0, 2 * S + 10 * MS);
        hs.onClientAck(1, 2 * S + 11 * MS);
        assertThat(setup.established).isTrue();
        assertThat(setup.setupNanos).isEqualTo(11 * MS);
        assertThat(setup.handshakeRttNanos).isEqualTo(11 * MS);
    }

    /** 17 resent SYNs (and SYN-ACKs) are counted; their first 16 gaps (SetupStats.MAX_GAPS) are kept. */
    @Test
    void atMostSixteenGapsAreKept() {
        for (int i = 0; i <= 17; i++) {
            hs.onSyn(1000, i * S);
        }
        for (int i = 0; i <= 17; i++) {
            hs.onSynAck(5000, 20 * S + i * 2 * S);
        }
        assertThat(setup.synRetransmits).isEqualTo(17);
        assertThat(setup.synRetransmitGapCount).isEqualTo(16);
        assertThat(setup.synRetransmitGapsNanos).containsOnly(S);
        assertThat(setup.synAckRetransmits).isEqualTo(17);
        assertThat(setup.synAckRetransmitGapCount).isEqualTo(16);
        assertThat(setup.synAckRetransmitGapsNanos).containsOnly(2 * S);
    }

    /**
     * Saved between SYN-ACK and ACK (flow state), the tracker still knows the client's ISN, the
     * server's ISN and the first SYN-ACK after the last SYN: SYN at 0, SYN-ACK at 10 ms, ACK at
     * 11 ms after the restore: RTT 11 ms.
     */
    @Test
    void aRoundTripKeepsBothIsnsAndTheSynAckTime() throws IOException {
        hs.onSyn(1000, 0);
        hs.onSynAck(5000, 10 * MS);
        HandshakeTracker back = new HandshakeTracker(setup);
        back.read(StateBytes.written(hs::write));

        assertThat(back.clientIsn()).isEqualTo(1000);
        back.onClientAck(5001, 11 * MS);
        assertThat(setup.established).isTrue();
        assertThat(setup.handshakeRttNanos).isEqualTo(11 * MS);
    }
}
