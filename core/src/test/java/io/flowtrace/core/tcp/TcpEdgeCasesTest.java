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
 * Hostile and odd TCP shapes (docs/reliability.md) that earlier tests did not cover (docs/reliability.md lists
 * the ones covered elsewhere). Expectations are worked out by hand from the segments written here.
 */
class TcpEdgeCasesTest {
    private static final long S = 5000;

    private final List<TcpFlowEvent> events = new ArrayList<>();
    private final TcpFlowAnalyzer flow = new TcpFlowAnalyzer(
            new Endpoint(Conversation.CLIENT, Conversation.CLIENT_PORT),
            new Endpoint(Conversation.SERVER, Conversation.SERVER_PORT),
            false,
            AnalyzerConfig.DEFAULTS);
    private final Conversation tcp = new Conversation(p -> flow.onPacket(p, events::add));

    /** 100 segments of 1000 B starting 50 kB below 2^32: the sequence space wraps in the middle. */
    @Test
    void countsBytesAcrossASequenceWraparoundAsNewDataNotRetransmissions() {
        long isn = 0x1_0000_0000L - 50_000;
        tcp.handshake(0, 1000, isn, S);
        for (int i = 0; i < 100; i++) {
            long seq = isn + 1 + 1000L * i; // Conversation masks to 32 bits: wraps at i = 50
            tcp.client(2000 + 100L * i).seq(seq).ack(S + 1).len(1000).send();
            tcp.server(2050 + 100L * i).seq(S + 1).ack(seq + 1000).send();
        }
        TcpDirectionStats c2s = flow.clientToServer();
        assertThat(c2s.dataBytes).isEqualTo(100_000);
        assertThat(c2s.uniqueBytes).isEqualTo(100_000);
        assertThat(c2s.retransmittedPackets).isZero();
        assertThat(c2s.lostSegments).isZero();
        assertThat(flow.serverToClient().dupAcks).isZero();
    }

    /** RFC 793 figure 8: both ends send SYN, then both SYN-ACK; the connection is established, nothing crashes. */
    @Test
    void survivesASimultaneousOpen() {
        tcp.client(0).seq(1000).flags(SYN).mss(1460).send();
        tcp.server(10).seq(S).flags(SYN).mss(1460).send();
        tcp.client(500).seq(1000).ack(S + 1).flags(SYN).send();
        tcp.server(510).seq(S).ack(1001).flags(SYN).send();
        tcp.client(1000).seq(1001).ack(S + 1).len(100).send();
        tcp.server(1500).seq(S + 1).ack(1101).send();
        assertThat(flow.clientToServer().dataBytes).isEqualTo(100);
        assertThat(flow.clientToServer().retransmittedPackets).isZero();
        assertThat(flow.end()).isEqualTo(TcpFlowEnd.OPEN);
    }

    /** A RST in the middle ends the flow as RST; segments still in flight after it are counted, not fatal. */
    @Test
    void endsWithRstInTheMiddleAndStillCountsStragglers() {
        tcp.handshake(0, 1000, 1000, S);
        tcp.client(2000).seq(1001).ack(S + 1).len(100).send();
        tcp.server(3000).seq(S + 1).flags(RST).send();
        tcp.client(3100).seq(1101).ack(S + 1).len(100).send();
        assertThat(flow.end()).isEqualTo(TcpFlowEnd.RST);
        assertThat(flow.closed()).isTrue();
        assertThat(flow.clientToServer().dataPackets).isEqualTo(2);
        assertThat(flow.clientToServer().dataBytes).isEqualTo(200);
    }

    /** Only the client's half is captured (asymmetric routing): data is counted, no loss or retransmission invented. */
    @Test
    void analysesACaptureWithTheReturnDirectionMissing() {
        tcp.client(0).seq(1000).flags(SYN).mss(1460).send();
        tcp.client(1000).seq(1001).ack(S + 1).send();
        for (int i = 0; i < 50; i++) {
            tcp.client(2000 + 100L * i)
                    .seq(1001 + 1000L * i)
                    .ack(S + 1)
                    .len(1000)
                    .send();
        }
        tcp.client(9000).seq(51_001).ack(S + 1).flags(FIN).send();
        TcpDirectionStats c2s = flow.clientToServer();
        assertThat(c2s.dataBytes).isEqualTo(50_000);
        assertThat(c2s.retransmittedPackets).isZero();
        assertThat(c2s.lostSegments).isZero();
        assertThat(flow.serverToClient().packets).isZero();
    }

    /**
     * Capture on both sides merged into one file (or a SPAN port copying twice): every packet twice,
     * same IP ID. The copies are network duplicates, not retransmissions; the bytes count once.
     */
    @Test
    void countsEveryPacketSeenTwiceAsANetworkDuplicate() {
        tcp.client(0).seq(1000).flags(SYN).ipId(1).send();
        tcp.client(1).seq(1000).flags(SYN).ipId(1).send();
        tcp.server(1000).seq(S).ack(1001).flags(SYN).ipId(7).send();
        tcp.server(1001).seq(S).ack(1001).flags(SYN).ipId(7).send();
        tcp.client(2000).seq(1001).ack(S + 1).ipId(2).send();
        tcp.client(2001).seq(1001).ack(S + 1).ipId(2).send();
        for (int i = 0; i < 10; i++) {
            int id = 10 + i;
            tcp.client(3000 + 100L * i)
                    .seq(1001 + 100L * i)
                    .ack(S + 1)
                    .len(100)
                    .ipId(id)
                    .send();
            tcp.client(3001 + 100L * i)
                    .seq(1001 + 100L * i)
                    .ack(S + 1)
                    .len(100)
                    .ipId(id)
                    .send();
        }
        TcpDirectionStats c2s = flow.clientToServer();
        assertThat(c2s.uniqueBytes).isEqualTo(1000);
        assertThat(c2s.networkDuplicates).isEqualTo(10);
        assertThat(c2s.retransmittedPackets).isZero();
    }
}
