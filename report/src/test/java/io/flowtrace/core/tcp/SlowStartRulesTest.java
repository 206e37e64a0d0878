package io.flowtrace.core.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.core.net.Endpoint;
import io.flowtrace.core.testing.CaptureRun;
import io.flowtrace.core.testing.Conversation;
import io.flowtrace.core.testing.TestData;
import io.flowtrace.core.testing.Tsv;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Hand-worked conversations for the round-based rules: cwnd-stuck rounds, RTO backoff, segment sizes. */
class SlowStartRulesTest {
    private static final long C = 1000;
    private static final long S = 5000;
    private static final int MSS = 1448;

    private final TcpFlowAnalyzer flow = new TcpFlowAnalyzer(
            new Endpoint(Conversation.CLIENT, Conversation.CLIENT_PORT),
            new Endpoint(Conversation.SERVER, Conversation.SERVER_PORT),
            false,
            AnalyzerConfig.DEFAULTS);
    private final Conversation tcp = new Conversation(p -> flow.onPacket(p, TcpEventSink.NONE));

    private void segment(long micros, long index) {
        tcp.client(micros).seq(C + 1 + MSS * index).ack(S + 1).len(MSS).send();
    }

    private void ackUpTo(long micros, long segments) {
        tcp.server(micros).seq(S + 1).ack(C + 1 + MSS * segments).window(65535).send();
    }

    /**
     * Seed 004: after a loss ends slow start the sender keeps 4 segments in flight for 30 rounds,
     * each new segment leaving 5 µs after the ACK that frees room (ACK-clocked: it had data).
     */
    @Test
    void countsRoundsStuckAtAFewSegmentsWhileTheSenderHasData() {
        tcp.handshake(0, 1000, C, S);
        long t = 2000;
        long next = 0;
        for (int i = 0; i < 4; i++) {
            segment(t++, next++);
        }
        // segment 0 lost: dup ACKs with SACK, fast retransmit ends slow start
        tcp.server(t += 500)
                .seq(S + 1)
                .ack(C + 1)
                .sack(C + 1 + MSS, C + 1 + 2L * MSS)
                .send();
        tcp.server(t += 1)
                .seq(S + 1)
                .ack(C + 1)
                .sack(C + 1 + MSS, C + 1 + 3L * MSS)
                .send();
        segment(t += 5, 0);
        ackUpTo(t += 500, 4);
        for (int round = 0; round < 30; round++) {
            for (int i = 0; i < 4; i++) {
                segment(t += 5, next++);
            }
            t += 500;
            ackUpTo(t, next); // one ACK covers the round; the next round's segments follow within 5 µs
        }
        SlowStartStats st = flow.slowStart(true);
        assertThat(st.exitReason).isEqualTo(SlowStartExitCause.LOSS);
        // every round after the exit held 4 segments: all but the round in which the exit happened
        assertThat(st.cwndStuckRounds).isBetween(28, 31);
    }

    @Test
    void doesNotCallAnApplicationLimitedSenderStuck() {
        tcp.handshake(0, 1000, C, S);
        long t = 2000;
        long next = 0;
        for (int round = 0; round < 30; round++) {
            for (int i = 0; i < 2; i++) {
                segment(t += 5, next++);
            }
            ackUpTo(t += 500, next);
            t += 50_000; // the application writes again only 50 ms later: the pipe sits empty
        }
        assertThat(flow.slowStart(true).cwndStuckRounds).isZero();
    }

    /**
     * cwnd only shrinks on loss: a sender that had 20 segments out and then keeps 4 in flight for 30
     * rounds without a retransmission, each ACK answered at once, is held by something else (here the
     * application writes 4 segments per round); its small rounds are application-limited, not stuck.
     */
    @Test
    void doesNotCallAPlateauBelowAnEarlierWindowStuck() {
        tcp.handshake(0, 1000, C, S);
        long t = 2000;
        long next = 0;
        for (int i = 0; i < 20; i++) {
            segment(t++, next++);
        }
        ackUpTo(t += 500, next);
        for (int round = 0; round < 30; round++) {
            for (int i = 0; i < 4; i++) {
                segment(t += 5, next++);
            }
            ackUpTo(t += 500, next);
        }
        SlowStartStats st = flow.slowStart(true);
        assertThat(st.cwndStuckRounds).isZero();
        assertThat(st.appLimitedSmallRounds).isGreaterThanOrEqualTo(28);
        assertThat(st.rwndLimitedSmallRounds).isZero();
    }

    /** Rounds of 4 segments against a peer window of 4 segments: the receive window, not cwnd. */
    @Test
    void saysTheReceiveWindowHeldSmallRoundsThatFilledIt() {
        tcp.handshake(0, 1000, C, S);
        long t = 2000;
        long next = 0;
        for (int round = 0; round < 30; round++) {
            for (int i = 0; i < 4; i++) {
                segment(t += 5, next++);
            }
            // window 4 × 1448 = 5792 bytes, unscaled (the handshake's scale 7 applies: 5792 >> 7 = 45.25)
            tcp.server(t += 500).seq(S + 1).ack(C + 1 + MSS * next).window(46).send();
        }
        SlowStartStats st = flow.slowStart(true);
        assertThat(st.cwndStuckRounds).isZero();
        assertThat(st.rwndLimitedSmallRounds).isGreaterThanOrEqualTo(28);
    }

    /**
     * One round that stops growing (20 segments after 20) is only a candidate exit; the
     * window then doubles to 40, 80 and 160 segments, which refutes it (beyond ×1.125 its 20 + 2
     * MSS), and slow start ends where growth really stops: at 160 segments, confirmed by the next
     * round the window held without growing. Each round: all its segments 1 µs apart, one ACK 500 µs
     * later covering them, the next round's first segment 1 µs after it (no idle pipe: not
     * application-limited); the peer's window is 65535 << 7 (not receive-window-limited).
     */
    @Test
    void aRoundThatStopsGrowingIsNoExitWhenTheWindowDoublesAfterIt() {
        tcp.handshake(0, 1000, C, S);
        long t = 2000;
        long next = 0;
        for (int segments : new int[] {10, 20, 20, 40, 80, 160, 160, 160, 160}) {
            for (int i = 0; i < segments; i++) {
                segment(t += 1, next++);
            }
            ackUpTo(t += 500, next);
        }
        SlowStartStats st = flow.slowStart(true);
        assertThat(st.exitReason).isEqualTo(SlowStartExitCause.APP_LIMITED);
        assertThat(st.exitCwndBytes).isEqualTo(160L * MSS);
    }

    /** RFC 6298 §5.5: each expiry doubles the timer; the schedule and its ratio show it. */
    @Test
    void recordsTheRtoBackoffScheduleOfOneSegment() {
        tcp.handshake(0, 1000, C, S);
        segment(2000, 0);
        segment(202_000, 0); // +200 ms
        segment(602_000, 0); // +400 ms
        segment(1_402_000, 0); // +800 ms
        TcpDirectionStats d = flow.clientToServer();
        assertThat(d.retransmittedPackets).isEqualTo(3);
        assertThat(d.rtoMaxRetries).isEqualTo(3);
        assertThat(java.util.Arrays.copyOf(d.rtoGapsNanos, d.rtoGapCount))
                .containsExactly(200_000_000L, 400_000_000L, 800_000_000L);
        assertThat(d.rtoGrowthRatio()).isEqualTo(2.0);
    }

    /** TSO on at the capture point: tshark's tcp.len per frame tells how many exceeded the MSS. */
    @Test
    void countsSuperSegmentsAboveTheMssAsTsharkSeesThem() throws Exception {
        CaptureRun run = CaptureRun.of(TestData.file("tcp/tso-on.sender.pcap.gz"));
        List<Map<String, String>> tshark = Tsv.read(TestData.file("tcp/tso-on.sender.tshark.tsv.gz"));
        for (Map<String, Object> f : run.flows.values()) {
            String client = (String) f.get("flow.client");
            String server = (String) f.get("flow.server");
            long above = 0;
            long announcedByServer = (Long) f.get("s2c.mss");
            for (Map<String, String> row : tshark) {
                String src = row.get("ip.src") + ":" + row.get("tcp.srcport");
                String dst = row.get("ip.dst") + ":" + row.get("tcp.dstport");
                if (src.equals(client)
                        && dst.equals(server)
                        && Long.parseLong(row.get("tcp.len")) > announcedByServer) {
                    above++;
                }
            }
            assertThat(f.get("c2s.segment_sizes.above_mss")).as(client).isEqualTo(above);
            if ((Long) f.get("c2s.data_packets") > 100) {
                assertThat(above).as("the TSO capture has super-segments").isPositive();
            }
        }
    }
}
