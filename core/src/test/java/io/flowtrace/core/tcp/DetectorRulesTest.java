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
}
