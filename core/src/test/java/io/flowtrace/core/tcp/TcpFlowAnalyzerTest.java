package io.flowtrace.core.tcp;

import static io.flowtrace.core.pcap.DecodedPacket.FIN;
import static io.flowtrace.core.pcap.DecodedPacket.RST;
import static io.flowtrace.core.pcap.DecodedPacket.SYN;
import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.core.net.Endpoint;
import io.flowtrace.core.testing.Conversation;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Hand-written conversations with hand-worked expectations. Sequence numbers: client ISN 1000,
 * so client data byte k (from 0) is at 1001 + k; segments are 100 bytes unless stated.
 */
class TcpFlowAnalyzerTest {
    private static final long C = 1000;
    private static final long S = 5000;

    private final List<TcpFlowEvent> events = new ArrayList<>();
    private final TcpFlowAnalyzer flow = new TcpFlowAnalyzer(
            new Endpoint(Conversation.CLIENT, Conversation.CLIENT_PORT),
            new Endpoint(Conversation.SERVER, Conversation.SERVER_PORT),
            false,
            AnalyzerConfig.DEFAULTS);
    private final Conversation tcp = new Conversation(p -> flow.onPacket(p, events::add));

    private void data(long micros, int index) {
        tcp.client(micros).seq(C + 1 + 100L * index).ack(S + 1).len(100).send();
    }

    private void ack(long micros, int segmentsAcked) {
        tcp.server(micros).seq(S + 1).ack(C + 1 + 100L * segmentsAcked).send();
    }

    private List<RetransmissionClass> classes() {
        return events.stream()
                .filter(e -> e instanceof TcpFlowEvent.Retransmission)
                .map(e -> ((TcpFlowEvent.Retransmission) e).retransmissionClass())
                .toList();
    }

    @Test
    void measuresSetupTimeAndHandshakeRtt() {
        tcp.handshake(0, 2000, C, S);
        assertThat(flow.established()).isTrue();
        assertThat(flow.setup().setupNanos).isEqualTo(2_001_000L);
        assertThat(flow.setup().handshakeRttNanos).isEqualTo(2_001_000L);
        assertThat(flow.setup().synRetransmits).isZero();
        assertThat(flow.clientToServer().mss).isEqualTo(1460);
    }

    @Test
    void recordsSynRetransmitsWithTheirBackoffGaps() {
        tcp.client(0).seq(C).flags(SYN).send();
        tcp.client(1_000_000).seq(C).flags(SYN).send();
        tcp.client(3_000_000).seq(C).flags(SYN).send();
        tcp.server(3_000_500).seq(S).ack(C + 1).flags(SYN).send();
        tcp.client(3_000_600).seq(C + 1).ack(S + 1).send();
        SetupStats s = flow.setup();
        assertThat(s.synRetransmits).isEqualTo(2);
        assertThat(s.synRetransmitGapsNanos).startsWith(1_000_000_000L, 2_000_000_000L);
        assertThat(s.setupNanos).isEqualTo(3_000_600_000L);
        assertThat(s.handshakeRttNanos).isEqualTo(600_000L); // from the last SYN, Karn-style
        assertThat(flow.clientToServer().retransmittedPackets).isZero();
    }

    @Test
    void classifiesRetransmissionAfterDupAcksAsFastAndCountsDupAcksLikeTshark() {
        tcp.handshake(0, 1000, C, S);
        for (int i = 0; i < 6; i++) {
            data(2000 + i, i);
        }
        ack(3000, 1);
        // segment 1 lost: three dup ACKs for it
        ack(3001, 1);
        ack(3002, 1);
        ack(3003, 1);
        data(3010, 1); // fast retransmit
        ack(4000, 6);
        assertThat(classes()).containsExactly(RetransmissionClass.FAST);
        TcpDirectionStats c2s = flow.clientToServer();
        assertThat(c2s.retransmittedPackets).isEqualTo(1);
        assertThat(c2s.retransmittedBytes).isEqualTo(100);
        assertThat(c2s.uniqueBytes).isEqualTo(600);
        assertThat(c2s.dataBytes).isEqualTo(700);
        assertThat(flow.serverToClient().dupAcks).isEqualTo(3);
        // Karn (RFC 6298 §3): the ACK at 4000 covers the retransmitted segment 1, so no sample;
        // the ACK at 3000 covers segment 0, sent once at 2000 µs: one sample of 1000 µs
        assertThat(c2s.rtt.count()).isEqualTo(1);
        assertThat(c2s.rtt.min()).isEqualTo(1_000_000L);
    }

    @Test
    void classifiesAStallPastTheMinimumRtoAsRtoAndTheRestOfTheEpisodeToo() {
        tcp.handshake(0, 1000, C, S);
        for (int i = 0; i < 4; i++) {
            data(2000 + i, i);
        }
        // everything lost; RTO fires 210 ms later and retransmits segment 0, then 1..3 in slow start
        data(212_000, 0);
        ack(213_000, 1);
        data(213_010, 1);
        data(213_011, 2);
        ack(214_000, 3);
        data(214_010, 3);
        ack(215_000, 4);
        assertThat(classes())
                .containsExactly(
                        RetransmissionClass.RTO,
                        RetransmissionClass.RTO,
                        RetransmissionClass.RTO,
                        RetransmissionClass.RTO);
        TcpFlowEvent.Retransmission first = (TcpFlowEvent.Retransmission) events.get(0);
        assertThat(first.sinceOriginalNanos()).isEqualTo(210_000_000L);
        assertThat(first.transmission()).isEqualTo(2);
    }

    @Test
    void classifiesAnEarlyRetransmissionOfTheLastSegmentWithoutLossSignalAsTlp() {
        tcp.handshake(0, 1000, C, S);
        for (int i = 0; i < 3; i++) {
            data(2000 + i, i);
        }
        ack(3000, 2);
        data(6000, 2); // probe: 2 RTTs after the ACK, no dup ACKs, the tail segment
        ack(7000, 3);
        assertThat(classes()).containsExactly(RetransmissionClass.TLP);
    }

    @Test
    void classifiesResendingAlreadyAckedDataAsSpurious() {
        tcp.handshake(0, 1000, C, S);
        data(2000, 0);
        data(2001, 1);
        ack(3000, 2);
        data(3500, 0);
        assertThat(classes()).containsExactly(RetransmissionClass.SPURIOUS);
    }

    private void dataWithId(long micros, int index, int ipId) {
        tcp.client(micros)
                .seq(C + 1 + 100L * index)
                .ack(S + 1)
                .len(100)
                .ipId(ipId)
                .send();
    }

    @Test
    void tellsReorderingFromLossAtTheReceiverVantageByTheSendersIpIds() {
        tcp.handshake(0, 10_000, C, S);
        // the sender numbers its packets 100, 101, ... (sequential ids are learnt from the first few);
        // this capture misses ids 106 and 108
        for (int i = 0; i < 5; i++) {
            dataWithId(20_000 + i, i, 100 + i);
        }
        dataWithId(20_010, 6, 107); // segment 5 (id 106) missing here
        dataWithId(20_011, 7, 108);
        dataWithId(20_050, 5, 106); // id older than segment 6's: the original, late
        dataWithId(20_100, 9, 110); // segment 8 (id 109) missing
        dataWithId(20_120, 8, 111); // id newer than segment 9's: a retransmission, however soon
        TcpDirectionStats c2s = flow.clientToServer();
        assertThat(c2s.lostSegments).isEqualTo(2);
        assertThat(c2s.reorderedPackets).isEqualTo(1);
        assertThat(c2s.retransmittedPackets).isEqualTo(1);
        assertThat(c2s.uniqueBytes).isEqualTo(1000);
    }

    @Test
    void tellsReorderingFromLossByTimingWhenIpIdsSayNothing() {
        tcp.handshake(0, 10_000, C, S); // handshake RTT 10 ms
        dataWithId(20_000, 0, -1);
        dataWithId(20_002, 2, -1); // segment 1 missing from the capture here
        dataWithId(20_050, 1, -1); // 48 µs later, no SACK yet: reordered
        dataWithId(20_100, 4, -1); // segment 3 missing
        tcp.server(20_200).seq(S + 1).ack(C + 301).sack(C + 401, C + 501).send(); // receiver signals the hole
        dataWithId(30_000, 3, -1); // ≈ one RTT after the SACK: retransmitted after a loss upstream
        TcpDirectionStats c2s = flow.clientToServer();
        assertThat(c2s.lostSegments).isEqualTo(2);
        assertThat(c2s.reorderedPackets).isEqualTo(1);
        assertThat(c2s.retransmittedPackets).isEqualTo(1);
        assertThat(c2s.uniqueBytes).isEqualTo(500);
    }

    @Test
    void countsASegmentWithTheSameIpIdAsANetworkDuplicate() {
        tcp.handshake(0, 1000, C, S);
        tcp.client(2000).seq(C + 1).ack(S + 1).len(100).ipId(777).send();
        tcp.client(2001).seq(C + 1).ack(S + 1).len(100).ipId(777).send();
        assertThat(flow.clientToServer().networkDuplicates).isEqualTo(1);
        assertThat(flow.clientToServer().retransmittedPackets).isZero();
    }

    @Test
    void unwrapsSequenceNumbersAcrossTwoToThe32() {
        long isn = 0xffffff00L;
        tcp.handshake(0, 1000, isn, S);
        for (int i = 0; i < 5; i++) { // bytes 0..499 cross the wrap at byte 255
            tcp.client(2000 + i).seq(isn + 1 + 100L * i).ack(S + 1).len(100).send();
        }
        tcp.server(3000).seq(S + 1).ack(isn + 1 + 500).send();
        TcpDirectionStats c2s = flow.clientToServer();
        assertThat(c2s.uniqueBytes).isEqualTo(500);
        assertThat(c2s.retransmittedPackets).isZero();
        assertThat(c2s.lostSegments).isZero();
        assertThat(c2s.rtt.count()).isEqualTo(1);
    }

    @Test
    void tracksBytesInFlightMinusSackedBytes() {
        tcp.handshake(0, 1000, C, S);
        for (int i = 0; i < 4; i++) {
            data(2000 + i, i);
        }
        assertThat(flow.clientToServer().maxInFlightBytes).isEqualTo(400);
        // segment 0 lost; receiver SACKs 1..3, then the sender, having processed the SACK (an
        // ACK-clocked send 100 µs later), sends segment 4
        tcp.server(3000).seq(S + 1).ack(C + 1).sack(C + 101, C + 401).send();
        data(3100, 4);
        // in flight = 500 sent − 0 ACKed − 300 SACKed
        assertThat(flow.clientToServer().maxInFlightBytes).isEqualTo(400);
        data(3101, 5);
        data(3102, 6);
        assertThat(flow.clientToServer().maxInFlightBytes).isEqualTo(400);
        data(3103, 7);
        assertThat(flow.clientToServer().maxInFlightBytes).isEqualTo(500);
    }

    /**
     * Linux's rate sample (tcp_rate_gen) spans the longer of its send and ACK phases, so ACKs bunched
     * after a stall on the way back do not make the link look faster. By hand (µs): segment 0 sent at
     * 2000, ACKed at 3000 (RTT 1000, the min RTT; round 1 starts, its send phase at 2000); segments
     * 1-10 sent every 300 µs from 3100 to 5800; the ACK of segment 1 held back to 6000 (ends round 1:
     * 100 B over max(6000 - 3000, 3100 - 2000) = 3000 µs; round 2 starts, its send phase at 3100);
     * segments 2-10 ACKed at once at 7000 (segment 10 sent at 5800): 900 B in an ACK phase of 1000 µs
     * (900,000 B/s by the ACKs alone) but a send phase of 5800 - 3100 = 2700 µs: 333,333 B/s.
     */
    @Test
    void takesTheDeliveryRateOverTheLongerOfTheSendAndAckPhases() {
        tcp.handshake(0, 1000, C, S);
        data(2000, 0);
        ack(3000, 1);
        for (int i = 1; i <= 10; i++) {
            data(3100 + 300L * (i - 1), i);
        }
        ack(6000, 2);
        ack(7000, 11);
        SlowStartStats ss = flow.slowStart(true);
        assertThat(ss.minRttNanos).isEqualTo(1_000_000L);
        assertThat(ss.maxDeliveryRateBytesPerSecond)
                .isCloseTo(900 / 2700e-6, org.assertj.core.data.Offset.offset(1e-6));
        assertThat(ss.bdpBytes()).isEqualTo(333L);
    }

    @Test
    void keepsSacksTheBusySenderHadNotProcessedInTheFlightUntilItRetransmits() {
        tcp.handshake(0, 1000, C, S);
        for (int i = 0; i < 4; i++) {
            data(2000 + i, i);
        }
        // segment 0 lost; the SACK for 1..3 arrives 5 µs before the sender's next send: it was
        // sending from the application and the ACK waited in the socket backlog
        tcp.server(3000).seq(S + 1).ack(C + 1).sack(C + 101, C + 401).send();
        data(3005, 4);
        data(3006, 5);
        // 600 sent, nothing ACKed, the SACK not yet processed by the sender
        assertThat(flow.clientToServer().maxInFlightBytes).isEqualTo(600);
        // the fast retransmission shows it has processed the SACK: 300 of the 600 are out of flight
        tcp.server(3050).seq(S + 1).ack(C + 1).sack(C + 101, C + 601).send();
        tcp.client(3060).seq(C + 1).ack(S + 1).len(100).send();
        data(3061, 6);
        assertThat(flow.clientToServer().maxInFlightBytes).isEqualTo(600);
        assertThat(flow.clientToServer().retransmittedPackets).isEqualTo(1);
    }

    @Test
    void takesTimestampRttFromTheFirstEchoOnly() {
        tcp.handshake(0, 1000, C, S);
        tcp.client(2000).seq(C + 1).ack(S + 1).len(100).ts(10, 0).send();
        tcp.client(2001).seq(C + 101).ack(S + 1).len(100).ts(10, 0).send();
        tcp.server(2500).seq(S + 1).ack(C + 101).ts(50, 10).send();
        tcp.server(2700).seq(S + 1).ack(C + 201).ts(51, 10).send();
        assertThat(flow.clientToServer().tsRtt.count()).isEqualTo(1);
        assertThat(flow.clientToServer().tsRtt.min()).isEqualTo(500_000L);
    }

    @Test
    void countsZeroWindowsAndWindowProbes() {
        tcp.handshake(0, 1000, C, S);
        data(2000, 0);
        tcp.server(3000).seq(S + 1).ack(C + 101).window(0).send();
        tcp.client(200_000).seq(C + 100).ack(S + 1).send(); // Linux probe: snd_una − 1, no data
        tcp.server(200_500).seq(S + 1).ack(C + 101).window(0).send();
        assertThat(flow.serverToClient().zeroWindows).isEqualTo(2);
        assertThat(flow.clientToServer().windowProbes).isEqualTo(1);
        assertThat(flow.clientToServer().retransmittedPackets).isZero();
    }

    @Test
    void endsWithFinOrRst() {
        tcp.handshake(0, 1000, C, S);
        tcp.client(2000).seq(C + 1).ack(S + 1).flags(FIN).send();
        assertThat(flow.end()).isEqualTo(TcpFlowEnd.FIN);
        assertThat(flow.closed()).isFalse();
        tcp.server(2100).seq(S + 1).ack(C + 2).flags(RST).send();
        assertThat(flow.end()).isEqualTo(TcpFlowEnd.RST);
        assertThat(flow.closed()).isTrue();
    }

    @Test
    void countsARetransmittedFinButNotSynRetransmitsAsDataRetransmissions() {
        tcp.handshake(0, 1000, C, S);
        tcp.client(2000).seq(C + 1).ack(S + 1).flags(FIN).send();
        // RFC 8985: the lone tail segment is probed once (Linux's PTO with one segment out is
        // about TCP_RTO_MIN, so ~200 ms); when the probe is lost too, the RTO resends it again
        tcp.client(230_000).seq(C + 1).ack(S + 1).flags(FIN).send();
        tcp.client(700_000).seq(C + 1).ack(S + 1).flags(FIN).send();
        assertThat(flow.clientToServer().retransmittedPackets).isEqualTo(2);
        assertThat(classes()).containsExactly(RetransmissionClass.TLP, RetransmissionClass.RTO);
    }
}
