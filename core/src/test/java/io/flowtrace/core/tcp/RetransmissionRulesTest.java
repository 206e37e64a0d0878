package io.flowtrace.core.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.core.pcap.DecodedPacket;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The data half's rules (RetransmissionClassifier: keep-alives, window probes, holes, late originals,
 * network duplicates, the RTO anchor and backoff) exactly on their edges, on hand-made segment
 * streams: each test is a mutant of the tcp-retransmissions group that survived the suite
 * (docs/metrics.md, "Mutation scores"), and each expected value is worked out here from the rule cited.
 * Client ISN 1000: relative sequence 0 is the SYN, data segment k of 100 bytes is [1 + 100k, 101 + 100k).
 * The handshake takes 10 ms (SYN at 0, handshake ACK at 10,000 µs), so the reorder window is 10 ms.
 */
class RetransmissionRulesTest {
    private static final long C = 1000;
    private static final long S = 5000;
    private static final long US = 1000;
    private static final long MS = 1_000_000;

    /**
     * Keep-alives both ways they are sent once everything is ACKed: Linux's (tcp_xmit_probe_skb: no
     * data, seq = snd_una - 1) and the one-byte kind other stacks send, which tshark flags by its rule
     * (packet-tcp.c: seglen ≤ 1 at nextseq - 1, no SYN, FIN or RST). Neither is a retransmission.
     */
    @Test
    void countsLinuxsEmptyKeepAliveAndTheOneByteKindAsKeepAlives() {
        HandFlow f = new HandFlow().open();
        f.data(20_000, 0, -1);
        f.ack(21_000, 1); // snd_una = relative 101
        f.tcp.client(1_000_000).seq(C + 100).ack(S + 1).send();
        f.tcp.client(2_000_000).seq(C + 100).ack(S + 1).len(1).send();
        assertThat(f.c2s().keepAlives).isEqualTo(2);
        assertThat(f.c2s().windowProbes).isZero();
        assertThat(f.c2s().retransmittedPackets).isZero();
        assertThat(f.c2s().uniqueBytes).isEqualTo(100);
    }

    /**
     * tshark's zero-window probe is one byte while the peer's window is zero (packet-tcp.c): 100
     * bytes into a closed window are data, and one byte into an open window is data too.
     */
    @Test
    void aWindowProbeIsOneByteIntoAClosedWindowAndNothingElse() {
        HandFlow f = new HandFlow().open();
        f.data(20_000, 0, -1);
        f.tcp.server(21_000).seq(S + 1).ack(C + 101).window(0).send();
        f.data(22_000, 1, -1); // 100 bytes although the window is closed
        f.tcp.server(23_000).seq(S + 1).ack(C + 201).window(1000).send();
        f.tcp.client(24_000).seq(C + 201).ack(S + 1).len(1).send(); // one byte, window open
        assertThat(f.c2s().windowProbes).isZero();
        assertThat(f.c2s().keepAlives).isZero();
        assertThat(f.c2s().uniqueBytes).isEqualTo(201);
        assertThat(f.c2s().retransmittedPackets).isZero();
    }

    /**
     * A tail-loss probe resends the last segment (RFC 8985 §7.3): it ends at snd_nxt and adds no
     * sequence space, so three segments out under a bound of three segments held drop none.
     */
    @Test
    void resendingTheTailHoldsNoExtraSegment() {
        HandFlow f = new HandFlow(AnalyzerConfig.DEFAULTS.withMaxSegmentsPerDirection(3)).open();
        for (int k = 0; k < 3; k++) {
            f.data(20_000 + k, k, -1);
        }
        f.data(40_000, 2, -1);
        assertThat(f.retransmissions()).hasSize(1);
        assertThat(f.c2s().stateOverflows).isZero();
    }

    /**
     * At the receiver's tap, segment 4 (IPv4 id 14) arrives after segments 5 and 6 (ids 15, 16): its
     * id is older than that of the segment after the hole, so it is the original, overtaken (a Linux
     * sender numbers a socket's packets one by one). The hole opened at 20,005 µs when segment 5
     * arrived (a lost segment from 401 to 501); it was 45 µs old when filled. 700 bytes, none twice.
     */
    @Test
    void aLateOriginalFillsItsHoleAndIsReorderingByItsOlderIpId() {
        HandFlow f = new HandFlow().open();
        for (int k = 0; k < 4; k++) {
            f.data(20_000 + k, k, 10 + k);
        }
        f.data(20_005, 5, 15);
        f.data(20_006, 6, 16);
        f.data(20_050, 4, 14);
        assertThat(f.dataEvents())
                .containsExactly(
                        new TcpFlowEvent.LostSegment(20_005 * US, true, 401, 501),
                        new TcpFlowEvent.Reordering(20_050 * US, true, 401, 100, 45 * US));
        assertThat(f.c2s().reorderedPackets).isEqualTo(1);
        assertThat(f.c2s().lostSegments).isEqualTo(1);
        assertThat(f.c2s().retransmittedPackets).isZero();
        assertThat(f.c2s().uniqueBytes).isEqualTo(700);
    }

    /**
     * The first segment's original (id 10) is lost before the tap; its retransmission (id 14, sent
     * after segments 1-3, ids 11-13) fills the hole at 20,100 µs, 99 µs after segment 1 opened it.
     * Then a copy with id 10 arrives: older than the retransmission already here, so the original
     * overtaken by its own retransmission (testdata/tcp/reorder-lane), 10 µs after it. The sender
     * retransmitted once: one retransmission, one reordering, 400 bytes.
     */
    @Test
    void anOriginalOvertakenByItsRetransmissionAtTheHeadIsReordering() {
        HandFlow f = new HandFlow().open();
        for (int k = 1; k < 4; k++) {
            f.data(20_000 + k, k, 10 + k);
        }
        f.data(20_100, 0, 14);
        f.data(20_110, 0, 10);
        List<TcpFlowEvent> events = f.dataEvents();
        assertThat(events).hasSize(3);
        assertThat(events.get(0)).isEqualTo(new TcpFlowEvent.LostSegment(20_001 * US, true, 1, 101));
        TcpFlowEvent.Retransmission r = (TcpFlowEvent.Retransmission) events.get(1);
        assertThat(r.seq()).isEqualTo(1);
        assertThat(r.transmission()).isEqualTo(2);
        assertThat(r.sinceOriginalNanos()).isEqualTo(99 * US);
        assertThat(events.get(2)).isEqualTo(new TcpFlowEvent.Reordering(20_110 * US, true, 1, 100, 10 * US));
        assertThat(f.c2s().retransmittedPackets).isEqualTo(1);
        assertThat(f.c2s().reorderedPackets).isEqualTo(1);
        assertThat(f.c2s().uniqueBytes).isEqualTo(400);
    }

    /**
     * Segment 0 (id 10) arrives after segments 1-3 (ids 11-13): the first unACKed byte (relative 1,
     * exactly the handshake's cumulative ACK) is a hole, and the id says it is the original, 19 µs
     * after segment 1 opened the hole.
     */
    @Test
    void aLateOriginalOfTheFirstUnackedByteIsReordering() {
        HandFlow f = new HandFlow().open();
        for (int k = 1; k < 4; k++) {
            f.data(20_000 + k, k, 10 + k);
        }
        f.data(20_020, 0, 10);
        assertThat(f.dataEvents())
                .containsExactly(
                        new TcpFlowEvent.LostSegment(20_001 * US, true, 1, 101),
                        new TcpFlowEvent.Reordering(20_020 * US, true, 1, 100, 19 * US));
        assertThat(f.c2s().uniqueBytes).isEqualTo(400);
        assertThat(f.c2s().retransmittedPackets).isZero();
    }

    /** Data whose last byte is exactly the cumulative ACK was delivered: resending it is spurious. */
    @Test
    void resendingASegmentEndingExactlyAtTheCumulativeAckIsSpurious() {
        HandFlow f = new HandFlow().open();
        f.data(20_000, 0, -1);
        f.data(20_001, 1, -1);
        f.ack(30_000, 2);
        f.data(40_000, 1, -1);
        assertThat(f.retransmissions())
                .extracting(TcpFlowEvent.Retransmission::retransmissionClass)
                .containsExactly(RetransmissionClass.SPURIOUS);
    }

    /**
     * IPv4 id 0 is an id like any other: a Linux socket's counter starts at random and passes 0 once
     * every 65,536 packets. The same segment twice with id 0 is one packet seen twice.
     */
    @Test
    void aSegmentSeenTwiceWithIpIdZeroIsANetworkDuplicate() {
        HandFlow f = new HandFlow().open();
        f.data(20_000, 0, 0);
        f.data(20_001, 0, 0);
        assertThat(f.c2s().networkDuplicates).isEqualTo(1);
        assertThat(f.c2s().retransmittedPackets).isZero();
    }

    /**
     * Without ids (-1, as IPv6) and without any loss signal, a hole fill younger than the reorder
     * window (10 ms, the handshake RTT) is reordering, and one exactly 10 ms old is not younger: a
     * retransmission (tstat's rule, Mellia et al. 2008, docs/metrics.md). Its original is unknown,
     * so its age is the hole's. The RTO later resends segment 0, sent once before: its second
     * transmission (the fill did not touch it).
     */
    @Test
    void withoutLossSignalAHoleFillExactlyAsOldAsTheReorderWindowIsARetransmission() {
        HandFlow f = new HandFlow().open();
        f.data(20_000, 0, -1);
        f.data(20_002, 2, -1); // segment 1 missed by the tap
        f.data(30_002, 1, -1); // the hole is 10,000 µs old
        f.data(250_000, 0, -1);
        List<TcpFlowEvent.Retransmission> r = f.retransmissions();
        assertThat(r).hasSize(2);
        assertThat(r.get(0).seq()).isEqualTo(101);
        assertThat(r.get(0).sinceOriginalNanos()).isEqualTo(10 * MS);
        assertThat(r.get(0).transmission()).isEqualTo(2);
        assertThat(r.get(1).seq()).isEqualTo(1);
        assertThat(r.get(1).transmission()).isEqualTo(2);
        assertThat(r.get(1).sinceOriginalNanos()).isEqualTo(230 * MS);
        assertThat(f.c2s().reorderedPackets).isZero();
        HandFlow young = new HandFlow().open();
        young.data(20_000, 0, -1);
        young.data(20_002, 2, -1);
        young.data(30_001, 1, -1); // 9,999 µs
        assertThat(young.c2s().reorderedPackets).isEqualTo(1);
        assertThat(young.c2s().retransmittedPackets).isZero();
    }

    /**
     * After a loss signal (here a SACK at 20,100 µs), a fill is a retransmission once half the reorder
     * window has passed since (5 ms: the dup ACK or SACK reached the sender and the resend came
     * back), reordering before. At 25,100 µs exactly: a retransmission; at 21,100 µs: reordering.
     */
    @Test
    void afterALossSignalAFillHalfAReorderWindowLaterIsARetransmission() {
        assertThat(fillAfterSack(25_100).retransmittedPackets).isEqualTo(1);
        assertThat(fillAfterSack(25_100).reorderedPackets).isZero();
        assertThat(fillAfterSack(21_100).retransmittedPackets).isZero();
        assertThat(fillAfterSack(21_100).reorderedPackets).isEqualTo(1);
    }

    private static TcpDirectionStats fillAfterSack(long fillMicros) {
        HandFlow f = new HandFlow().open();
        f.data(20_000, 0, -1);
        f.data(20_002, 2, -1);
        f.tcp.server(20_100).seq(S + 1).ack(C + 101).sack(C + 201, C + 301).send();
        f.data(fillMicros, 1, -1);
        return f.c2s();
    }

    /**
     * Handshake and data with ids near 65,535: the counter wraps to 0 (one step, 65,535 → 0). A hole
     * fill 20 ms old (twice the reorder window: timing alone would call it a retransmission) whose
     * id is older than that of the segment after the hole is the original, with the id 0 on either side.
     */
    @Test
    void idsComparedAcrossTheirWrapAtZeroOnEitherSideOfTheHole() {
        // the late segment carries id 0, the one after the hole id 1
        assertThat(lateAcrossTheWrap(4, new int[] {65_532, 65_533, 65_534, 65_535, 0, 1, 2}).reorderedPackets)
                .isEqualTo(1);
        // the late segment carries id 65,535, the one after the hole id 0
        HandFlow f = lateAcrossTheWrapFlow(3, new int[] {65_532, 65_533, 65_534, 65_535, 0, 1, 2});
        assertThat(f.c2s().reorderedPackets).isEqualTo(1);
        assertThat(f.c2s().retransmittedPackets).isZero();
    }

    private static TcpDirectionStats lateAcrossTheWrap(int late, int[] ids) {
        HandFlow f = lateAcrossTheWrapFlow(late, ids);
        assertThat(f.c2s().retransmittedPackets).isZero();
        return f.c2s();
    }

    /** Segments 0-6 with the given ids, segment {@code late} missing until 20 ms after the next one. */
    private static HandFlow lateAcrossTheWrapFlow(int late, int[] ids) {
        HandFlow f = new HandFlow();
        f.tcp.client(0)
                .seq(C)
                .flags(DecodedPacket.SYN)
                .mss(1460)
                .wscale(7)
                .ipId(65_500)
                .send();
        f.tcp.server(9_999)
                .seq(S)
                .ack(C + 1)
                .flags(DecodedPacket.SYN)
                .mss(1460)
                .wscale(7)
                .ipId(0)
                .send();
        f.tcp.client(10_000).seq(C + 1).ack(S + 1).ipId(65_501).send();
        for (int k = 0; k < ids.length; k++) {
            if (k != late) {
                f.data(20_000 + k, k, ids[k]);
            }
        }
        f.data(20_000 + late + 1 + 20_000, late, ids[late]);
        return f;
    }

    /**
     * RFC 1982's serial arithmetic on 16-bit ids: an id 32,767 (2^15 - 1) after that of the segment
     * after the hole is newer, so the fill was sent after it: a retransmission, however soon
     * (1 ms, within the reorder window).
     */
    @Test
    void aFillWhoseIdIsHalfTheIdSpaceLessOneNewerIsARetransmission() {
        HandFlow f = new HandFlow().open();
        for (int k = 0; k < 4; k++) {
            f.data(20_000 + k, k, 10 + k);
        }
        f.data(20_005, 5, 15);
        f.data(20_006, 6, 16);
        f.data(21_006, 4, 15 + 0x7fff);
        assertThat(f.c2s().retransmittedPackets).isEqualTo(1);
        assertThat(f.c2s().reorderedPackets).isZero();
    }

    /**
     * Linux collapses small segments into one on retransmission (tcp_retrans_try_collapse): segments 0,
     * 2 and 4 were seen, 1 and 3 missed by the tap, and one 500-byte resend covers all five at 250 ms.
     * It is one retransmission of 500 bytes, its 200 never-seen bytes are unique data (500 in all),
     * and it is the second transmission of segment 0 (230 ms after it). Segment 3 resent at 300 ms
     * alone is its third transmission, 50 ms after the collapsed one (its first sighting); segment 4's
     * too, 280 ms after its original.
     */
    @Test
    void aCollapsedResendOverSeenAndUnseenSegmentsCountsTheUnseenBytesOnce() {
        HandFlow f = new HandFlow().open();
        f.data(20_000, 0, -1);
        f.data(20_002, 2, -1);
        f.data(20_004, 4, -1);
        f.tcp.client(250_000).seq(C + 1).ack(S + 1).len(500).ipId(-1).send();
        f.data(300_000, 3, -1);
        f.data(300_004, 4, -1);
        assertThat(f.c2s().uniqueBytes).isEqualTo(500);
        List<TcpFlowEvent.Retransmission> r = f.retransmissions();
        assertThat(r).extracting(TcpFlowEvent.Retransmission::seq).containsExactly(1L, 301L, 401L);
        assertThat(r).extracting(TcpFlowEvent.Retransmission::bytes).containsExactly(500, 100, 100);
        assertThat(r).extracting(TcpFlowEvent.Retransmission::transmission).containsExactly(2, 3, 3);
        assertThat(r)
                .extracting(TcpFlowEvent.Retransmission::sinceOriginalNanos)
                .containsExactly(230 * MS, 50 * MS, 280 * MS);
        assertThat(f.c2s().retransmittedBytes).isEqualTo(700);
    }

    /**
     * The RTO timer is armed when data leaves with nothing in flight (tcp_output.c,
     * tcp_event_new_data_sent: rearm when prior_packets is 0), so after a second idle, segment 1 sent
     * at 1 s and resent 50 ms later cannot be an RTO (at least TCP_RTO_MIN = 200 ms): without dup ACK
     * or SACK and below the tail, "other". Counting from the last ACK (30 ms) would call it an RTO.
     */
    @Test
    void theRtoTimerOfDataSentAfterIdleRunsFromItsSendingNotFromTheLastAck() {
        HandFlow f = new HandFlow().open();
        f.data(20_000, 0, -1);
        f.ack(30_000, 1);
        f.data(1_000_000, 1, -1);
        f.data(1_000_001, 2, -1);
        f.data(1_050_000, 1, -1);
        assertThat(f.retransmissions())
                .extracting(TcpFlowEvent.Retransmission::retransmissionClass)
                .containsExactly(RetransmissionClass.OTHER);
    }

    /**
     * A stall of exactly the minimum RTO (180 ms: AnalyzerConfig.DEFAULTS, Linux's 200 ms less
     * capture jitter) is RTO-like (the timer fires when it reaches its value): segment 0 resent
     * 180 ms after it left, below the tail, is an RTO; 1 µs sooner it is "other".
     */
    @Test
    void aStallOfExactlyTheMinimumRtoIsAnRto() {
        assertThat(resentAfter(200_000)).containsExactly(RetransmissionClass.RTO);
        assertThat(resentAfter(199_999)).containsExactly(RetransmissionClass.OTHER);
    }

    private static List<RetransmissionClass> resentAfter(long micros) {
        HandFlow f = new HandFlow().open();
        f.data(20_000, 0, -1);
        f.data(20_001, 1, -1);
        f.data(micros, 0, -1);
        return f.retransmissions().stream()
                .map(TcpFlowEvent.Retransmission::retransmissionClass)
                .toList();
    }

    /**
     * Three dup ACKs start fast recovery (tcp_fastretrans_alert: Recovery, a fast retransmit of segment
     * 1); 250 ms without progress and the RTO fires (tcp_retransmit_timer, tcp_enter_loss: Loss,
     * with high_seq = snd_nxt = the end of segment 5); segment 1 is ACKed and segment 2, below
     * high_seq, goes out again still in Loss: what the kernel's tcp_cong_state_set records as fast,
     * rto, rto (KernelTruthTest's classes).
     */
    @Test
    void anRtoDuringFastRecoveryTurnsTheRestOfTheEpisodeIntoLoss() {
        HandFlow f = new HandFlow().open();
        for (int k = 0; k < 6; k++) {
            f.data(20_000 + k, k, -1);
        }
        f.ack(30_000, 1);
        f.ack(30_001, 1);
        f.ack(30_002, 1);
        f.ack(30_003, 1);
        f.data(30_010, 1, -1);
        f.data(280_010, 1, -1);
        f.ack(290_000, 2);
        f.data(290_010, 2, -1);
        assertThat(f.retransmissions())
                .extracting(TcpFlowEvent.Retransmission::retransmissionClass)
                .containsExactly(RetransmissionClass.FAST, RetransmissionClass.RTO, RetransmissionClass.RTO);
    }

    /**
     * RFC 6298 §5.5: each expiry doubles the timer. Segment 0 sent at 20 ms and resent at 220, 620 and
     * 1,420 ms: gaps of 200, 400 and 800 ms, the second and third resends each an RTO backoff event
     * (attempts 2 and 3).
     */
    @Test
    void successiveResendsOfOneSegmentAreItsBackoffSchedule() {
        HandFlow f = new HandFlow().open();
        f.data(20_000, 0, -1);
        f.data(20_001, 1, -1);
        f.data(220_000, 0, -1);
        f.data(620_000, 0, -1);
        f.data(1_420_000, 0, -1);
        assertThat(f.dataEvents().stream().filter(e -> e instanceof TcpFlowEvent.RtoBackoff))
                .containsExactly(
                        new TcpFlowEvent.RtoBackoff(620 * MS, true, 1, 2, 400 * MS),
                        new TcpFlowEvent.RtoBackoff(1_420 * MS, true, 1, 3, 800 * MS));
        assertThat(f.c2s().rtoMaxRetries).isEqualTo(3);
        assertThat(f.c2s().rtoGapCount).isEqualTo(3);
        assertThat(f.c2s().rtoGapsNanos).startsWith(200 * MS, 400 * MS, 800 * MS);
    }

    /**
     * Linux gives up after tcp_retries2 = 15 by default, but the sysctl allows more: 18 resends of one
     * segment, one a second, are 18 attempts; the record keeps the first
     * TcpDirectionStats.MAX_BACKOFF_GAPS = 16 gaps (the original's 1 s and 15 more) and drops the rest.
     */
    @Test
    void aScheduleLongerThanTheRecordKeepsItsFirstSixteenGaps() {
        HandFlow f = new HandFlow().open();
        f.data(20_000, 0, -1);
        f.data(20_001, 1, -1);
        for (int n = 1; n <= 18; n++) {
            f.data(20_000 + 1_000_000L * n, 0, -1);
        }
        assertThat(f.c2s().rtoMaxRetries).isEqualTo(18);
        assertThat(f.c2s().rtoGapCount).isEqualTo(TcpDirectionStats.MAX_BACKOFF_GAPS);
        assertThat(f.c2s().rtoGapsNanos).containsOnly(1_000 * MS);
    }

    /**
     * Segment 0's retransmission (id 12, newer than segment 1's 11) shares its capture timestamp with
     * segment 1, which opened the hole: µs timestamps, a burst. Its age is 0, a gap like any other.
     */
    @Test
    void aRetransmissionInTheSameMicrosecondAsTheHolesOpeningHasAGapOfZero() {
        HandFlow f = new HandFlow().open();
        f.data(20_001, 1, 11);
        f.data(20_001, 0, 12);
        assertThat(f.c2s().retransmittedPackets).isEqualTo(1);
        assertThat(f.c2s().rtoMaxRetries).isEqualTo(1);
        assertThat(f.c2s().rtoGapCount).isEqualTo(1);
        assertThat(f.c2s().rtoGapsNanos[0]).isZero();
    }

    /**
     * A fast retransmit ends slow start (tcp_enter_recovery sets ssthresh), also when the tap never saw
     * the original: at the receiver's tap segment 1 is a hole, SACKed at 20,100 µs, filled 5 ms later
     * (a retransmission by the SACK rule above) while the sender is still in slow start.
     */
    @Test
    void aRetransmissionFillingAHoleInSlowStartEndsItByLoss() {
        HandFlow f = new HandFlow().open();
        f.data(20_000, 0, -1);
        f.data(20_002, 2, -1);
        f.tcp.server(20_100).seq(S + 1).ack(C + 101).sack(C + 201, C + 301).send();
        f.data(25_100, 1, -1);
        assertThat(f.retransmissions())
                .extracting(TcpFlowEvent.Retransmission::trigger)
                .containsExactly(RetransmissionClass.FAST);
        assertThat(f.analyzer.slowStart(true).exitReason).isEqualTo(SlowStartExitCause.LOSS);
    }

    /**
     * A spurious RTO ends slow start too (tcp_enter_loss sets ssthresh before any undo): the ACK of
     * segments 2-3 passed the tap at 40 ms but never reached the sender, whose timer resends its head,
     * segment 2, at 260 ms. Already ACKed here: spurious, sent by an RTO.
     */
    @Test
    void aSpuriousRtoInSlowStartEndsItByLoss() {
        HandFlow f = new HandFlow().open();
        f.data(20_000, 0, -1);
        f.data(20_001, 1, -1);
        f.ack(30_000, 2);
        f.data(30_010, 2, -1);
        f.data(30_011, 3, -1);
        f.ack(40_000, 4);
        f.data(260_000, 2, -1);
        List<TcpFlowEvent.Retransmission> r = f.retransmissions();
        assertThat(r)
                .extracting(TcpFlowEvent.Retransmission::retransmissionClass)
                .containsExactly(RetransmissionClass.SPURIOUS);
        assertThat(r).extracting(TcpFlowEvent.Retransmission::trigger).containsExactly(RetransmissionClass.RTO);
        assertThat(f.analyzer.slowStart(true).exitReason).isEqualTo(SlowStartExitCause.LOSS);
    }

    /**
     * A capture that starts mid-connection: the client's first packet is a pure ACK (its sequence
     * starts there, relative 0), the server ACKs relative 0, then client data appears 1,000 bytes
     * further on (the tap missed them). Unacknowledged: from the server's ACK (0) to the end of
     * that data (1,100), so 1,100 bytes in flight (RFC 6675's FlightSize, snd_nxt - snd_una).
     */
    @Test
    void midConnectionTheBytesBetweenThePeersAckAndTheFirstDataSeenAreInFlight() {
        HandFlow f = new HandFlow();
        f.tcp.client(0).seq(C + 1).ack(S + 1).send();
        f.tcp.server(100).seq(S + 1).ack(C + 1).send();
        f.tcp.client(200).seq(C + 1 + 1000).ack(S + 1).len(100).send();
        assertThat(f.c2s().maxInFlightBytes).isEqualTo(1100);
    }

    /**
     * The one-byte zero-window probe other stacks send (RFC 9293 §3.8.6.1; tshark: seglen 1 at nextseq
     * while the peer's window is zero): the byte is new data sent as a probe, so once the window opens
     * the sender goes on from the byte after it: no hole, 201 unique bytes, one probe.
     */
    @Test
    void aOneByteProbeIntoAClosedWindowIsAProbeAndItsByteIsSent() {
        HandFlow f = new HandFlow().open();
        f.data(20_000, 0, -1);
        f.tcp.server(21_000).seq(S + 1).ack(C + 101).window(0).send();
        f.tcp.client(221_000).seq(C + 101).ack(S + 1).len(1).send();
        f.tcp.server(222_000).seq(S + 1).ack(C + 102).window(1000).send();
        f.tcp.client(222_010).seq(C + 102).ack(S + 1).len(100).send();
        assertThat(f.c2s().windowProbes).isEqualTo(1);
        // the probe's byte went out once and is ACKed 1 ms later: an RTT sample, as segment 0's (RFC 6298 §3)
        assertThat(f.c2s().rtt.count()).isEqualTo(2);
        assertThat(f.c2s().lostSegments).isZero();
        assertThat(f.c2s().uniqueBytes).isEqualTo(201);
        assertThat(f.c2s().retransmittedPackets).isZero();
    }

    /**
     * A resend that also carries new bytes (a stack that repacketizes on retransmission): segment 1
     * [101, 201) resent with the next 100 bytes at 250 ms is one retransmission, and [201, 301) is
     * new data sent then: 300 unique bytes, no hole after it, and its own resend at 300 ms is its
     * second transmission, 50 ms after that first.
     */
    @Test
    void aResendReachingBeyondTheHighestSequenceSentAlsoSendsTheNewBytes() {
        HandFlow f = new HandFlow().open();
        f.data(20_000, 0, -1);
        f.data(20_001, 1, -1);
        f.tcp.client(250_000).seq(C + 101).ack(S + 1).len(200).send();
        f.data(300_000, 2, -1);
        f.data(300_001, 3, -1);
        assertThat(f.c2s().uniqueBytes).isEqualTo(400);
        assertThat(f.c2s().lostSegments).isZero();
        List<TcpFlowEvent.Retransmission> r = f.retransmissions();
        assertThat(r).extracting(TcpFlowEvent.Retransmission::seq).containsExactly(101L, 201L);
        assertThat(r).extracting(TcpFlowEvent.Retransmission::transmission).containsExactly(2, 2);
        assertThat(r)
                .extracting(TcpFlowEvent.Retransmission::sinceOriginalNanos)
                .containsExactly(230 * MS - 1 * US, 50 * MS);
    }

    /**
     * A resend that straddles the cumulative ACK: segments 0 and 1 ([1, 101), [101, 201)) sent, the
     * receiver ACKs 101, and the sender resends [1, 201) as one 200-byte segment (it had not
     * processed the ACK yet, or repacketized). The sequence space sent is still [1, 201): 201 - 1 =
     * 200 unique bytes, not 300. Then [1, 301) once more, 100 bytes beyond snd_nxt: 301 - 1 = 300.
     * Both are retransmissions by tshark's rule (packet-tcp.c: data below nextseq) and neither is
     * spurious (each ends above the ACK): 2 retransmissions of 200 + 300 = 500 bytes.
     */
    @Test
    void aResendStraddlingTheCumulativeAckAddsOnlyTheSequenceSpaceNeverSent() {
        HandFlow f = new HandFlow().open();
        f.data(20_000, 0, -1);
        f.data(20_001, 1, -1);
        f.ack(30_000, 1); // cumulative ACK at relative 101
        f.tcp.client(250_000).seq(C + 1).ack(S + 1).len(200).ipId(-1).send();
        assertThat(f.c2s().uniqueBytes).isEqualTo(201 - 1);
        f.tcp.client(700_000).seq(C + 1).ack(S + 1).len(300).ipId(-1).send();
        assertThat(f.c2s().uniqueBytes).isEqualTo(301 - 1);
        assertThat(f.c2s().retransmittedPackets).isEqualTo(2);
        assertThat(f.c2s().retransmittedBytes).isEqualTo(200 + 300);
        assertThat(f.c2s().retransmits(RetransmissionClass.SPURIOUS)).isZero();
        assertThat(f.c2s().lostSegments).isZero();
    }
}
