package io.flowtrace.core.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.core.net.Endpoint;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.core.testing.Conversation;
import java.io.DataInputStream;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * The per-sender rules of {@link SenderState} on values worked out by hand in each comment: the
 * RFC 6298 estimator, the segment size, the IPv4 id bookkeeping and the SACK backlog window; and its
 * flow state written and read back unchanged.
 */
class SenderStateTest {
    private static final long MS = 1_000_000L;

    /**
     * RFC 6298 §2.2-2.3: the first sample R gives SRTT = R, RTTVAR = R / 2; each later R' gives
     * RTTVAR = 3/4 RTTVAR + 1/4 |SRTT - R'| (with the old SRTT), then SRTT = 7/8 SRTT + 1/8 R'; RTO =
     * SRTT + 4 RTTVAR. 100 ms: SRTT 100, RTTVAR 50. 200 ms: RTTVAR (150 + 100) / 4 = 62.5 ms, SRTT
     * (700 + 200) / 8 = 112.5 ms, RTO 112.5 + 250 = 362.5 ms (above a 200 ms floor, below a 1 s one).
     * 40 ms: RTTVAR (187.5 + 72.5) / 4 = 65 ms, SRTT (787.5 + 40) / 8 = 103.4375 ms.
     */
    @Test
    void smoothedRttAndVarianceFollowRfc6298() {
        SenderState s = new SenderState();
        s.addRttSample(100 * MS);
        assertThat(s.srttNanos).isEqualTo(100 * MS);
        assertThat(s.rttvarNanos).isEqualTo(50 * MS);
        s.addRttSample(200 * MS);
        assertThat(s.rttvarNanos).isEqualTo(62_500_000L);
        assertThat(s.srttNanos).isEqualTo(112_500_000L);
        assertThat(s.rtoEstimate(200 * MS)).isEqualTo(362_500_000L);
        assertThat(s.rtoEstimate(1_000 * MS)).isEqualTo(1_000 * MS);
        s.addRttSample(40 * MS);
        assertThat(s.rttvarNanos).isEqualTo(65 * MS);
        assertThat(s.srttNanos).isEqualTo(103_437_500L);
        assertThat(s.stats.rtt.count()).isEqualTo(3);
    }

    /**
     * The segment size: the MSS the peer announced less the 12 bytes the timestamp option takes from
     * every segment (1460 - 12 = 1448), capped by the largest segment seen (1000); with no MSS (or an
     * MSS option of 0, a size no sender can use) the largest segment seen; with neither, 0.
     */
    @Test
    void theSegmentSizeIsThePeersMssLessTimestampsCappedByTheLargestSeen() {
        SenderState s = new SenderState();
        assertThat(s.segmentSize()).isZero();
        s.peerMss = 1460;
        assertThat(s.segmentSize()).isEqualTo(1460);
        s.usesTimestamps = true;
        assertThat(s.segmentSize()).isEqualTo(1448);
        s.stats.maxSegmentBytes = 1000;
        assertThat(s.segmentSize()).isEqualTo(1000);
        s.stats.maxSegmentBytes = 1448;
        assertThat(s.segmentSize()).isEqualTo(1448);
        s.peerMss = 0;
        assertThat(s.segmentSize()).isEqualTo(1448);
        s.peerMss = -1;
        s.stats.maxSegmentBytes = 1200;
        assertThat(s.segmentSize()).isEqualTo(1200);
    }

    /**
     * IPv4 ids (16 bits): an increment of 1 to 64 is sequential, anything else a jump; id 0 is an id
     * like any other and 0xffff → 0 wraps as an increment of 1. Ids 0, 1 (+1), 65 (+64), 130 (+65),
     * 30000 (+29870), 0xffff (+35535, i.e. 30001 back: further than any flight, a jump), 0 (+1):
     * 3 sequential, 3 jumps, nothing went back. -1 (no id: IPv6) changes nothing.
     */
    @Test
    void idIncrementsOfOneToSixtyFourAreSequential() {
        SenderState s = new SenderState();
        for (int id : new int[] {0, 1, 65, 130, 30000, 0xffff, 0, -1}) {
            s.observeIpId(id);
            assertThat(s.ipIdWentBack).isFalse();
        }
        assertThat(s.ipIdSequential).isEqualTo(3);
        assertThat(s.ipIdOther).isEqualTo(3);
        assertThat(s.lastIpId).isZero();
    }

    /**
     * An id at most MAX_ID_STEP_BACK = 4096 behind the newest was sent before it (overtaken) and the
     * newest stays the reference; 4097 behind is a jump and becomes the reference. From 5000: 904
     * (4096 back) went back, 5001 is +1 from 5000, then 903 (4098 back from 5001) is a jump and
     * the next id 904 is +1 from it.
     */
    @Test
    void anIdUpTo4096BehindTheNewestWentBack() {
        SenderState s = new SenderState();
        s.observeIpId(5000);
        s.observeIpId(904);
        assertThat(s.ipIdWentBack).isTrue();
        assertThat(s.lastIpId).isEqualTo(5000);
        s.observeIpId(5001);
        assertThat(s.ipIdWentBack).isFalse();
        s.observeIpId(903);
        assertThat(s.ipIdWentBack).isFalse();
        assertThat(s.lastIpId).isEqualTo(903);
        s.observeIpId(904);
        assertThat(s.ipIdWentBack).isFalse();
        // 904 - 5000 = -4096 (other), 5001 - 5000 = +1, 903 - 5001 (other), 904 - 903 = +1
        assertThat(s.ipIdSequential).isEqualTo(2);
        assertThat(s.ipIdOther).isEqualTo(2);
    }

    /**
     * Sequential ids: at least 4 small increments and at least 4 x as many as jumps, or at least one
     * and no jump. (4, 1) and (8, 2) are; (3, 1), (7, 2) and (0, 0) are not; (1, 0) is.
     */
    @Test
    void idsAreSequentialFromFourIncrementsPerJumpOrOneWithoutJumps() {
        assertThat(sequential(4, 1)).isTrue();
        assertThat(sequential(8, 2)).isTrue();
        assertThat(sequential(3, 1)).isFalse();
        assertThat(sequential(7, 2)).isFalse();
        assertThat(sequential(0, 0)).isFalse();
        assertThat(sequential(1, 0)).isTrue();
    }

    private static boolean sequential(int small, int jumps) {
        SenderState s = new SenderState();
        s.ipIdSequential = small;
        s.ipIdOther = jumps;
        return s.ipIdsSequential();
    }

    /**
     * A send less than SACK_REACTION_NANOS = 20 µs after an ACK that SACKed new data means that ACK
     * waited in the backlog; 20 µs exactly or later it did not; out of the open state (recovery) the
     * rule does not apply. A SACK at capture time 0 counts like any other.
     */
    @Test
    void aSendWithinTwentyMicrosecondsOfANewSackMarksItBacklogged() {
        SenderState s = new SenderState();
        s.onNewDataSent(10_000);
        assertThat(s.sackBacklogged).isFalse(); // no SACK yet
        s.lastNewSackNanos = 1_000;
        s.onNewDataSent(21_000);
        assertThat(s.sackBacklogged).isFalse();
        s.onNewDataSent(20_999);
        assertThat(s.sackBacklogged).isTrue();

        SenderState atZero = new SenderState();
        atZero.lastNewSackNanos = 0;
        atZero.onNewDataSent(19_999);
        assertThat(atZero.sackBacklogged).isTrue();

        SenderState recovering = new SenderState();
        recovering.recovery = SenderState.Recovery.RECOVERY;
        recovering.lastNewSackNanos = 1_000;
        recovering.onNewDataSent(2_000);
        assertThat(recovering.sackBacklogged).isFalse();
    }

    /**
     * Written and read back (flow state of every version), each sender's state writes the same bytes
     * again: after a hand-made exchange (handshake with window scaling, timestamps, data, a SACK, a
     * FIN), with every flag set in turn to one pattern and its complement, and fresh; a HyStart
     * signal refuted (version 4) stays refuted.
     */
    @Test
    void writtenAndReadBackEverySenderWritesTheSameBytes() throws IOException {
        TcpFlowAnalyzer flow = new TcpFlowAnalyzer(
                new Endpoint(Conversation.CLIENT, Conversation.CLIENT_PORT),
                new Endpoint(Conversation.SERVER, Conversation.SERVER_PORT),
                false,
                AnalyzerConfig.DEFAULTS);
        Conversation tcp = new Conversation(p -> flow.onPacket(p, TcpEventSink.NONE));
        tcp.client(0)
                .seq(1000)
                .flags(DecodedPacket.SYN)
                .mss(1460)
                .wscale(7)
                .ts(1, 0)
                .send();
        tcp.server(100)
                .seq(5000)
                .ack(1001)
                .flags(DecodedPacket.SYN)
                .mss(1400)
                .wscale(2)
                .ts(7, 1)
                .send();
        tcp.client(101).seq(1001).ack(5001).ts(2, 7).send();
        for (int i = 0; i < 6; i++) {
            tcp.client(200 + i)
                    .seq(1001 + 100L * i)
                    .ack(5001)
                    .len(100)
                    .ts(3 + i, 7)
                    .send();
        }
        tcp.server(400).seq(5001).ack(1101).sack(1201, 1301).ts(8, 3).send();
        tcp.server(410).seq(5001).ack(1601).len(50).ts(9, 8).send();
        tcp.client(420).seq(1601).ack(5051).flags(DecodedPacket.FIN).ts(10, 9).send();
        flow.fromClient.rounds.hyStart.readV4(StateBytes.in(new byte[] {1}));

        SenderState client = roundTripBytesEqual(flow.fromClient);
        assertThat(client.rounds.hyStart.refuted()).isTrue();
        assertThat(client.synSeen).isTrue();
        assertThat(client.scalingAgreed).isTrue();
        roundTripBytesEqual(flow.fromServer);
        roundTripBytesEqual(new SenderState());

        for (boolean b : new boolean[] {true, false}) {
            SenderState s = new SenderState();
            s.synSeen = b;
            s.sentAnything = !b;
            s.ackSeen = b;
            s.peerSacking = !b;
            s.scalingAgreed = b;
            s.lastSegmentKeepAlive = !b;
            s.lastSegmentZeroWindowProbe = b;
            s.recovery = b ? SenderState.Recovery.LOSS : SenderState.Recovery.RECOVERY;
            s.backoffGapCount = 2;
            s.backoffGaps[0] = 200 * MS;
            s.backoffGaps[1] = 400 * MS;
            SenderState back = roundTripBytesEqual(s);
            assertThat(back.synSeen).isEqualTo(b);
            assertThat(back.sentAnything).isEqualTo(!b);
            assertThat(back.ackSeen).isEqualTo(b);
            assertThat(back.peerSacking).isEqualTo(!b);
            assertThat(back.scalingAgreed).isEqualTo(b);
            assertThat(back.lastSegmentKeepAlive).isEqualTo(!b);
            assertThat(back.lastSegmentZeroWindowProbe).isEqualTo(b);
            assertThat(back.recovery).isEqualTo(s.recovery);
            assertThat(back.backoffGapCount).isEqualTo(2);
            assertThat(back.backoffGaps).startsWith(200 * MS, 400 * MS);
        }
    }

    private static SenderState roundTripBytesEqual(SenderState s) throws IOException {
        byte[] bytes = bytes(s);
        SenderState back = new SenderState();
        DataInputStream in = StateBytes.in(bytes);
        back.read(in);
        back.readV2(in);
        back.readV3(in);
        back.readV4(in);
        assertThat(in.available()).isZero();
        assertThat(bytes(back)).isEqualTo(bytes);
        return back;
    }

    private static byte[] bytes(SenderState s) throws IOException {
        return StateBytes.of(out -> {
            s.write(out);
            s.writeV2(out);
            s.writeV3(out);
            s.writeV4(out);
        });
    }
}
