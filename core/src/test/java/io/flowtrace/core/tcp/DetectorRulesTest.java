package io.flowtrace.core.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.core.net.Endpoint;
import io.flowtrace.core.testing.Conversation;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Rules of the detectors that no capture exercises, on hand-made sequences whose expected result is
 * worked out here from the RFC or kernel rule cited at each test (each one a mutant that survived
 * the suite before: docs/metrics.md, Mutation testing).
 */
class DetectorRulesTest {
    private static final long C = 1000;
    private static final long S = 5000;
    private static final long MS = 1_000_000L;

    private final List<TcpFlowEvent> events = new ArrayList<>();
    private final TcpFlowAnalyzer flow = new TcpFlowAnalyzer(
            new Endpoint(Conversation.CLIENT, Conversation.CLIENT_PORT),
            new Endpoint(Conversation.SERVER, Conversation.SERVER_PORT),
            false,
            AnalyzerConfig.DEFAULTS);
    private final Conversation tcp = new Conversation(p -> flow.onPacket(p, events::add));

    /**
     * Segment 2 of 0-4 resent 1 ms after the last ACK, with no dup ACK or SACK and 4 still the highest
     * segment sent: not a loss probe (RFC 8985 §7.3 resends the last segment), not a fast
     * retransmission (RFC 5681 §3.2 needs 3 dup ACKs, RFC 6675 a SACK), not an RTO (1 ms, against
     * the 200 ms minimum): the class "other".
     */
    @Test
    void aResendBelowTheTailWithoutLossSignalBeforeAnyRtoIsOther() {
        tcp.handshake(0, 1000, C, S);
        for (int i = 0; i < 5; i++) {
            tcp.client(2000 + i).seq(C + 1 + 100L * i).ack(S + 1).len(100).send();
        }
        tcp.server(3000).seq(S + 1).ack(C + 1 + 200).send();
        tcp.client(4000).seq(C + 1 + 200).ack(S + 1).len(100).send();
        assertThat(events.stream()
                        .filter(e -> e instanceof TcpFlowEvent.Retransmission)
                        .map(e -> ((TcpFlowEvent.Retransmission) e).retransmissionClass()))
                .containsExactly(RetransmissionClass.OTHER);
    }

    /**
     * HyStart's delay test (tcp_cubic.c hystart_update): after HYSTART_MIN_SAMPLES = 8 samples in a
     * round, exit when the round's smallest RTT exceeds delay_min + clamp(delay_min / 8, 4 ms, 16 ms).
     * delay_min 10 ms: threshold 10 + max(4, min(16, 1.25)) = 14 ms. ACKs 3 ms apart (more than
     * hystart_ack_delta_us = 2 ms) never form a train. Samples of 15 ms fire on the 9th ACK; samples of
     * 13.9 ms never do.
     */
    @Test
    void theDelayTestFiresOnTheNinthSampleAboveDelayMinPlusFourMilliseconds() {
        assertThat(replay(15 * MS))
                .containsExactly(null, null, null, null, null, null, null, null, SlowStartExitCause.DELAY);
        assertThat(replay(13_900_000L)).containsOnlyNulls().hasSize(9);
    }

    private static List<SlowStartExitCause> replay(long rtt) {
        HyStartReplay h = new HyStartReplay();
        long mss = 1000;
        List<SlowStartExitCause> out = new ArrayList<>();
        for (int i = 1; i <= 9; i++) {
            // one round: every ACK stays below the 100,000 bytes sent when it began; cwnd 20 segments
            out.add(h.onSampledAck(i * 3 * MS, 1000L * i, 100_000, rtt, 20 * mss, mss, 10 * MS, 10 * MS));
        }
        return out;
    }

    /**
     * Karn (RFC 6298 §3) as RFC 6675 extends it: a cumulative ACK that only catches up over data the
     * receiver had SACKed before says nothing about when that data arrived, so it gives no RTT
     * sample, although every segment it covers went out once. One covering a segment never SACKed
     * (the ACK's own arrival) does.
     */
    @Test
    void anAckCatchingUpOverSackedDataGivesNoRttSample() {
        SegmentQueue q = new SegmentQueue();
        q.append(0, 1000, 0, 1);
        q.append(1000, 2000, 10, 2);
        q.sack(1000, 2000);
        q.ackTo(2000);
        assertThat(q.lastAckedTransmissions).isEqualTo(1);
        assertThat(q.ackCoveredAmbiguous).isTrue();
        SegmentQueue fresh = new SegmentQueue();
        fresh.append(0, 1000, 0, 1);
        fresh.append(1000, 2000, 10, 2);
        fresh.ackTo(2000);
        assertThat(fresh.ackCoveredAmbiguous).isFalse();
    }

    /**
     * HyStart's ACK-train test exactly on its edges (tcp_cubic.c, hystart_update and
     * cubictcp_acked): it runs from cwnd >= hystart_low_window = 16 segments; an ACK whose cumulative
     * ACK reaches end_seq exactly is still in the round (after() is strict); ACKs at most
     * hystart_ack_delta_us = 2 ms apart continue the train; it fires once the train is longer than
     * (delay_min + ack delay) / 2, strictly. cwnd 16 x 1000 B at srtt 10 ms paces at 3.2 MB/s, so the
     * ack delay is min(1 ms, 4 x 65,536 B / 3.2 MB/s = 82 ms) = 1 ms; delay_min 3 ms: threshold 2 ms.
     * ACKs at 0, 2 ms (2 ms apart: the train goes on; 2 ms long: not past 2 ms) and 2.5 ms (ACKing
     * end_seq exactly): it fires at 2.5 ms. Without an MSS or a delay_min sample nothing runs.
     */
    @Test
    void theAckTrainTestOnItsEdges() {
        assertThat(train(1000, 3 * MS)).containsExactly(null, null, SlowStartExitCause.ACK_TRAIN);
        assertThat(train(0, 3 * MS)).containsOnlyNulls();
        assertThat(train(1000, 0)).containsOnlyNulls();
    }

    private static List<SlowStartExitCause> train(long mss, long delayMin) {
        HyStartReplay h = new HyStartReplay();
        long cwnd = 16 * 1000;
        List<SlowStartExitCause> out = new ArrayList<>();
        out.add(h.onSampledAck(0, 1000, 5000, -1, cwnd, mss, delayMin, 10 * MS));
        out.add(h.onSampledAck(2 * MS, 3000, 5000, -1, cwnd, mss, delayMin, 10 * MS));
        out.add(h.onSampledAck(2_500_000, 5000, 5000, -1, cwnd, mss, delayMin, 10 * MS));
        return out;
    }

    /**
     * The ack delay from the pacing rate (tcp_cubic.c hystart_ack_delay: 4 x gso_max_size at
     * sk_pacing_rate, at most 1 ms; slow start paces at 2 x cwnd / srtt): cwnd 28,960 B at srtt
     * 100 µs is 579.2 MB/s, so 262,144 B take 452,596 ns; delay_min 100 µs: threshold
     * (100,000 + 452,596) / 2 = 276,298 ns. ACKs 100 µs apart: the one at 300 µs fires, not the one
     * at 200 µs (with the 1 ms cap it would be 550 µs).
     */
    @Test
    void theAckTrainThresholdFollowsThePacingRate() {
        HyStartReplay h = new HyStartReplay();
        List<SlowStartExitCause> out = new ArrayList<>();
        for (int i = 0; i <= 3; i++) {
            out.add(h.onSampledAck(i * 100_000L, 1000L * (i + 1), 100_000, -1, 28_960, 1448, 100_000, 100_000));
        }
        assertThat(out).containsExactly(null, null, null, SlowStartExitCause.ACK_TRAIN);
    }

    /**
     * An RTT sample of 0 is a sample (tcp_cubic.c cubictcp_acked returns only for rtt_us &lt; 0 and
     * takes 0 as 1 µs): a round whose first sample is 0 keeps a smallest RTT of 0, and the nine samples
     * of 15 ms after it (above delay_min 10 ms + 4 ms) never fire the delay test.
     */
    @Test
    void anRttSampleOfZeroCountsForTheDelayTest() {
        HyStartReplay h = new HyStartReplay();
        List<SlowStartExitCause> out = new ArrayList<>();
        for (int i = 0; i <= 9; i++) {
            long rtt = i == 0 ? 0 : 15 * MS;
            out.add(h.onSampledAck(i * 3 * MS, 1000L * (i + 1), 100_000, rtt, 20_000, 1000, 10 * MS, 10 * MS));
        }
        assertThat(out).containsOnlyNulls().hasSize(10);
    }

    /**
     * A round may begin with end_seq 0 (a capture that starts mid-flow numbers the sender's bytes from
     * the first it saw, so an older ACK is negative and snd_nxt can be 0), and an ACK of 0 is then in
     * that round (after() is strict, as in theAckTrainTestOnItsEdges): ACKs at 0 and 1.5 ms, cwnd 16
     * segments, delay_min 1 ms, ack delay 1 ms: threshold (1 + 1) / 2 = 1 ms, passed at 1.5 ms.
     */
    @Test
    void aRoundEndingAtSequenceZeroIsARoundLikeAnyOther() {
        HyStartReplay h = new HyStartReplay();
        assertThat(h.onSampledAck(0, -5, 0, -1, 16_000, 1000, MS, 10 * MS)).isNull();
        assertThat(h.onSampledAck(1_500_000, 0, 0, -1, 16_000, 1000, MS, 10 * MS))
                .isEqualTo(SlowStartExitCause.ACK_TRAIN);
    }

    /** The delay test is strict too: samples of exactly delay_min + 4 ms (10 + 4 = 14 ms) never fire. */
    @Test
    void theDelayTestDoesNotFireExactlyOnItsThreshold() {
        assertThat(replay(14 * MS)).containsOnlyNulls().hasSize(9);
    }
}
