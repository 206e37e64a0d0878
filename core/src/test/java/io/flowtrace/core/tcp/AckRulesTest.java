package io.flowtrace.core.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The ACK half's rules (AckProcessor: RTT samples, ACKs of data the tap never saw, duplicate ACKs,
 * zero windows, SACK and D-SACK blocks, the end of a recovery episode) exactly on their edges, on
 * hand-made packet streams: each test kills a mutant of the tcp-retransmissions group that survived
 * the suite (docs/metrics.md, "tcp-retransmissions' survivors"), and each expected value is worked
 * out here from the rule cited (RFC 2018, RFC 2883, RFC 5681, RFC 6298, tshark's packet-tcp.c,
 * Linux's tcp_input.c). Client ISN 1000: relative sequence 0 is the SYN, data segment k of 100
 * bytes is [1 + 100k, 101 + 100k). The handshake takes 10 ms (SYN at 0, handshake ACK at 10,000
 * µs), so the reorder window is 10 ms; no stall under 180 ms is an RTO (AnalyzerConfig). Client
 * segments carry no IPv4 id (-1), so timing, not the id order, tells a hole fill's kind.
 */
class AckRulesTest {
    private static final long C = 1000;
    private static final long S = 5000;
    private static final long MS = 1_000_000;

    /**
     * RFC 6298 §3: a sample is the ACK's time less the time the segment it covers was sent. At the
     * receiver's tap an immediate ACK can be stamped in the same microsecond as the segment (pcap's
     * resolution): a sample of 0, which is a measurement (only an ACK stamped before its segment, a
     * negative one, is not).
     */
    @Test
    void anAckStampedInTheSameMicrosecondAsItsSegmentIsAnRttSampleOfZero() {
        HandFlow f = new HandFlow().open();
        f.data(20_000, 0);
        f.ack(20_000, 1);
        assertThat(f.c2s().rtt.count()).isEqualTo(1);
        assertThat(f.c2s().rtt.min()).isZero();
    }

    /**
     * tshark's "ACKed segment that wasn't captured" (packet-tcp.c: the ACK is above the highest
     * sequence the tap saw the peer send): an ACK of exactly what was sent is not one; segment 1
     * missed by the tap and ACKed is one; the ACK after the next segment, again exactly what was
     * sent, is not.
     */
    @Test
    void onlyAnAckAboveTheHighestSequenceSeenAcksUnseenData() {
        HandFlow f = new HandFlow().open();
        f.data(20_000, 0);
        f.ack(30_000, 1); // 101: exactly snd_nxt as seen
        assertThat(f.c2s().ackedUnseen).isZero();
        f.ack(31_000, 2); // 201: segment 1 [101, 201) never passed the tap
        assertThat(f.c2s().ackedUnseen).isEqualTo(1);
        f.data(31_010, 2);
        f.ack(41_000, 3); // 301: exactly snd_nxt again
        assertThat(f.c2s().ackedUnseen).isEqualTo(1);
    }

    /**
     * RFC 5681 §2: an ACK is a duplicate only if (a) the receiver of the ACK has outstanding data.
     * Segment 0 is ACKed, the server repeats the ACK with nothing outstanding (tshark flags it, its
     * rule has no outstanding-data condition), then segment 1 leaves at 30 ms and is resent 50 ms
     * later, before any RTO (at least 180 ms): with no duplicate ACK or SACK since it was sent, the
     * resend of the last segment is a tail-loss probe (RFC 8985 §7.3), not a fast retransmission.
     */
    @Test
    void aRepeatedAckWithNothingOutstandingIsNoLossSignal() {
        HandFlow f = new HandFlow().open();
        f.data(20_000, 0);
        f.ack(21_000, 1);
        f.ack(22_000, 1); // same ACK, same window, nothing outstanding
        f.data(30_000, 1);
        f.data(80_000, 1);
        assertThat(f.s2c().dupAcks).isEqualTo(1);
        assertThat(f.retransmissions())
                .extracting(TcpFlowEvent.Retransmission::retransmissionClass)
                .containsExactly(RetransmissionClass.TLP);
    }

    /**
     * The loss signal starts at the first duplicate ACK and later ones do not move it. Segment 1 is
     * missing (0 at 20,000 µs, 2 at 20,002 µs), the server ACKs 101 at 21 ms and duplicates it at
     * 22 and 25 ms; segment 1 arrives at 27 ms. 27 - 22 = 5 ms is not less than half the 10 ms
     * reorder window, so it is a retransmission (tstat's rule, docs/metrics.md); timed from the
     * second duplicate (2 ms), or from the hole's opening with no signal at all (6,998 µs, under
     * the window), it would be reordering.
     */
    @Test
    void theLossSignalStartsAtTheFirstDuplicateAck() {
        HandFlow f = new HandFlow().open();
        f.data(20_000, 0);
        f.data(20_002, 2);
        f.ack(21_000, 1);
        f.ack(22_000, 1);
        f.ack(25_000, 1);
        f.data(27_000, 1);
        assertThat(f.s2c().dupAcks).isEqualTo(2);
        assertThat(f.c2s().retransmittedPackets).isEqualTo(1);
        assertThat(f.c2s().reorderedPackets).isZero();
    }

    /**
     * tshark's zero window (packet-tcp.c: window 0 on a segment without SYN, FIN or RST) is an
     * event wherever it comes: the server's ACK of segment 0 with window 0 at 21 ms, and, in a
     * capture that starts mid-connection, the server's window-0 ACK at 5 ms before the tap saw the
     * client send anything. Two zero windows from the server, at those times.
     */
    @Test
    void everyZeroWindowIsAnEventEvenBeforeThePeerSentAnything() {
        HandFlow f = new HandFlow().open();
        f.data(20_000, 0);
        f.tcp.server(21_000).seq(S + 1).ack(C + 101).window(0).send();
        assertThat(f.zeroWindows()).containsExactly(new TcpFlowEvent.ZeroWindow(21 * MS, false));

        HandFlow mid = new HandFlow();
        mid.tcp.server(5_000).seq(S + 1).ack(C + 1).window(0).send();
        assertThat(mid.zeroWindows()).containsExactly(new TcpFlowEvent.ZeroWindow(5 * MS, false));
        assertThat(f.s2c().zeroWindows + mid.s2c().zeroWindows).isEqualTo(2);
    }

    /**
     * A SACK option has as many blocks as it says (RFC 2018 §3): after an ACK carrying block [201,
     * 301), the server's ACK of 301 carries none, and nothing it does not carry is read as a D-SACK
     * (RFC 2883 §4: the first block below the ACK). No D-SACK was sent.
     */
    @Test
    void anAckWithoutSackBlocksHasNoDsack() {
        HandFlow f = new HandFlow().open();
        f.data(20_000, 0);
        f.data(20_001, 1);
        f.data(20_002, 2);
        f.ack(21_000, 1);
        f.sack(22_000, 1, 2, 3);
        f.data(22_100, 1);
        f.ack(32_000, 3);
        assertThat(f.s2c().dsacks).isZero();
        assertThat(f.c2s().retransmittedPackets).isEqualTo(1);
    }

    /**
     * A block is [left edge, right edge): the first sequence number and the one after the last (RFC
     * 2018 §3). A block [51, 51) holds no data, so though below the ACK it reports no duplicate.
     */
    @Test
    void anEmptySackBlockIsNoDsack() {
        HandFlow f = new HandFlow().open();
        f.data(20_000, 0);
        f.data(20_001, 1);
        f.tcp.server(21_000).seq(S + 1).ack(C + 101).sack(C + 51, C + 51).send();
        assertThat(f.s2c().dsacks).isZero();
    }

    /**
     * Linux's D-SACK test (tcp_input.c, tcp_check_dsack, after RFC 2883 §4): the first block is a
     * D-SACK when it starts before the ACK. A first block starting at the ACK, [101, 201) with ACK
     * 101, does not.
     */
    @Test
    void aFirstBlockStartingAtTheAckIsNoDsack() {
        HandFlow f = new HandFlow().open();
        f.data(20_000, 0);
        f.data(20_001, 1);
        f.data(20_002, 2);
        f.sack(21_000, 1, 1, 2);
        assertThat(f.s2c().dsacks).isZero();
    }

    /**
     * The other D-SACK (RFC 2883 §4.1.3; tcp_check_dsack: the first block not before the second's
     * start and not after its end): the receiver holds [201, 501) out of order (segment 1 lost) and
     * gets segment 2 again: D-SACK [201, 301) then SACK [201, 501), the first inside the second at
     * its left edge; then segment 4 again, [401, 501) inside [201, 501) at its right edge: 2
     * D-SACKs. Then a lone block [201, 501) has no second block to lie in: still 2.
     */
    @Test
    void aFirstBlockInsideTheSecondIsADsackUpToBothEdges() {
        HandFlow f = new HandFlow().open();
        for (int k = 0; k < 5; k++) {
            f.data(20_000 + k, k);
        }
        f.ack(21_000, 1);
        f.tcp.server(22_000)
                .seq(S + 1)
                .ack(C + 101)
                .sack(C + 201, C + 301)
                .sack(C + 201, C + 501)
                .send();
        assertThat(f.s2c().dsacks).isEqualTo(1);
        f.tcp.server(23_000)
                .seq(S + 1)
                .ack(C + 101)
                .sack(C + 401, C + 501)
                .sack(C + 201, C + 501)
                .send();
        assertThat(f.s2c().dsacks).isEqualTo(2);
        f.sack(24_000, 1, 2, 5);
        assertThat(f.s2c().dsacks).isEqualTo(2);
    }

    /**
     * Linux ignores a SACK block that ends at or below the cumulative ACK (tcp_sacktag_write_queue:
     * a block not after snd_una says nothing new). The server's data segment (not a duplicate ACK)
     * ACKs 101 with a D-SACK [51, 101) and a second block [1, 101): no loss signal, so segment 1
     * resent 50 ms later, before any RTO, is a tail-loss probe (RFC 8985 §7.3), not fast recovery.
     */
    @Test
    void aSecondBlockEndingAtTheAckIsNoLossSignal() {
        HandFlow f = new HandFlow().open();
        f.data(20_000, 0);
        f.data(20_001, 1);
        f.tcp.server(21_000)
                .seq(S + 1)
                .ack(C + 101)
                .len(50)
                .sack(C + 51, C + 101)
                .sack(C + 1, C + 101)
                .send();
        f.data(71_000, 1);
        assertThat(f.s2c().dsacks).isEqualTo(1);
        assertThat(f.retransmissions())
                .extracting(TcpFlowEvent.Retransmission::retransmissionClass)
                .containsExactly(RetransmissionClass.TLP);
    }

    /**
     * A duplicate ACK repeating a SACK block SACKs nothing new, so it does not tell of a sender
     * busy sending (SenderState's backlog rule: a send less than 20 µs after an ACK that SACKed new
     * data). Segments 0-3 out (400 bytes), segment 0 lost: [101, 401) SACKed at 30 ms, the same
     * block again at 35 ms, then segments 4-6 (limited transmit, RFC 3042) 5 µs after that. The
     * sender had 5 ms to process the SACK: in flight 701 - 1 - 300 = 400 bytes at most, the 400
     * before the SACK.
     */
    @Test
    void aSackThatSacksNothingNewDoesNotHoldItsBlocksInTheFlight() {
        HandFlow f = new HandFlow().open();
        for (int k = 0; k < 4; k++) {
            f.data(20_000 + k, k);
        }
        f.sack(30_000, 0, 1, 4);
        f.sack(35_000, 0, 1, 4);
        f.data(35_005, 4);
        f.data(35_006, 5);
        f.data(35_007, 6);
        assertThat(f.c2s().maxInFlightBytes).isEqualTo(400);
    }

    /**
     * Segments 0-3 out, segment 0 lost: [101, 401) SACKed at 30 ms; segment 4 leaves 5 µs later, so
     * the SACK still waits in the backlog and the flight is 501 - 1 = 500; segment 0 resent at
     * 30,010 µs starts fast recovery (high_seq 501); everything ACKed at 40 ms. Returns with the
     * largest flight 500 bytes.
     */
    private static HandFlow recoverFromOneLoss() {
        HandFlow f = new HandFlow().open();
        for (int k = 0; k < 4; k++) {
            f.data(20_000 + k, k);
        }
        f.sack(30_000, 0, 1, 4);
        f.data(30_005, 4);
        f.data(30_010, 0);
        f.ack(40_000, 5);
        assertThat(f.c2s().maxInFlightBytes).isEqualTo(500);
        assertThat(f.retransmissions())
                .extracting(TcpFlowEvent.Retransmission::retransmissionClass)
                .containsExactly(RetransmissionClass.FAST);
        return f;
    }

    /**
     * Once everything SACKed is cumulatively ACKed, the backlogged SACKs are gone with it. After
     * {@link #recoverFromOneLoss}, segments 5-8 leave at 40 ms, [601, 901) is SACKed at 50 ms and
     * segments 9-11 leave 10 ms later, long after it: in flight 1201 - 501 - 300 = 400 at most
     * then, so the largest flight stays 500.
     */
    @Test
    void anAckOfEverythingSackedClearsTheSackBacklog() {
        HandFlow f = recoverFromOneLoss();
        for (int k = 5; k <= 8; k++) {
            f.data(40_010 + k, k);
        }
        f.sack(50_000, 5, 6, 9);
        for (int k = 9; k <= 11; k++) {
            f.data(60_000 + k, k);
        }
        assertThat(f.c2s().maxInFlightBytes).isEqualTo(500);
    }

    /**
     * Fast recovery ends when the cumulative ACK reaches high_seq, the highest sequence sent when
     * it began (Linux's tcp_fastretrans_alert: snd_una not before high_seq), here exactly 501.
     * After {@link #recoverFromOneLoss}, segments 5-10 leave at 40 ms (flight 600), [601, 1101) is
     * SACKed at 50 ms and segment 11 leaves 5 µs later: an Open sender that has not processed that
     * SACK yet, so in flight 1201 - 501 = 700 (in recovery the SACKed 500 would be out: 200).
     */
    @Test
    void fastRecoveryEndsWhenTheAckReachesExactlyItsHighSequence() {
        HandFlow f = recoverFromOneLoss();
        for (int k = 5; k <= 10; k++) {
            f.data(40_010 + k, k);
        }
        f.sack(50_000, 5, 6, 11);
        f.data(50_005, 11);
        assertThat(f.c2s().maxInFlightBytes).isEqualTo(700);
    }

    /**
     * A SACK block starting below every segment held (RFC 2018 §4: the receiver reports what it
     * holds, including bytes the tap missed) marks the held segments inside it. The tap missed
     * segments 0 and 1; segments 2-5 ([201, 601)) are held, 600 bytes from the ACK (1) in flight;
     * the server SACKs [101, 301), so segment 2 is out of the flight; segment 6 leaves 1 ms later
     * (the sender had time to process the SACK): 701 - 1 - 100 = 600 in flight, no more than
     * before.
     */
    @Test
    void aSackBlockStartingBelowEveryHeldSegmentSacksTheHeldOnesInside() {
        HandFlow f = new HandFlow().open();
        for (int k = 2; k <= 5; k++) {
            f.data(20_000 + k, k);
        }
        assertThat(f.c2s().maxInFlightBytes).isEqualTo(600);
        f.sack(30_000, 0, 1, 3);
        f.data(31_000, 6);
        assertThat(f.c2s().maxInFlightBytes).isEqualTo(600);
    }
}
