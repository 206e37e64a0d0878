package io.flowtrace.core.flow;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.core.net.FlowKey;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.pcap.DecodeStatus;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.core.tcp.AnalyzerConfig;
import io.flowtrace.core.tcp.TcpFlowAnalyzer;
import io.flowtrace.core.tcp.TcpFlowEnd;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class FlowTrackerTest {
    private static final VantagePoint TEST = new VantagePoint("test", "if0");

    private record Ended(FlowKey key, long instance, TcpFlowAnalyzer flow) {}

    private final List<Ended> ended = new ArrayList<>();
    private final FlowTracker tracker =
            new FlowTracker(AnalyzerConfig.DEFAULTS, i -> TEST, (k, i, f) -> ended.add(new Ended(k, i, f)));
    private final DecodedPacket p = new DecodedPacket();
    private FlowTracker tracker2;

    private void send(
            long nanos, int srcIp, int srcPort, int dstIp, int dstPort, int flags, long seq, long ack, int len) {
        p.status = DecodeStatus.TCP;
        p.timestampNanos = nanos;
        p.ipVersion = 4;
        p.addrLength = 4;
        java.nio.ByteBuffer.wrap(p.srcAddr).putInt(0, srcIp);
        java.nio.ByteBuffer.wrap(p.dstAddr).putInt(0, dstIp);
        p.srcPort = srcPort;
        p.dstPort = dstPort;
        p.flags = flags;
        p.seq = seq & 0xffffffffL;
        p.ack = ack & 0xffffffffL;
        p.payloadLength = len;
        p.window = 1000;
        p.ipId = -1;
        p.mss = -1;
        p.windowScale = -1;
        p.sackCount = 0;
        p.tsVal = -1;
        p.tsEcr = -1;
        (tracker2 != null ? tracker2 : tracker).onPacket(p);
    }

    private static final int CLIENT = 0x0a000001;
    private static final int SERVER = 0x0a000002;
    private static final int SYN = DecodedPacket.SYN;
    private static final int ACK = DecodedPacket.ACK;

    private void connection(long t, int clientPort, long isn) {
        send(t, CLIENT, clientPort, SERVER, 443, SYN, isn, 0, 0);
        send(t + 1000, SERVER, 443, CLIENT, clientPort, SYN | ACK, 7000, isn + 1, 0);
        send(t + 2000, CLIENT, clientPort, SERVER, 443, ACK, isn + 1, 7001, 0);
    }

    @Test
    void startsANewInstanceWhenAClosedPortPairIsReused() {
        connection(0, 40000, 100);
        send(10_000, CLIENT, 40000, SERVER, 443, DecodedPacket.RST | ACK, 101, 7001, 0);
        connection(1_000_000_000L, 40000, 900_000);
        tracker.flush();
        assertThat(ended).hasSize(2);
        assertThat(ended.get(0).flow().end()).isEqualTo(TcpFlowEnd.RST);
        assertThat(ended.get(0).instance()).isEqualTo(0L);
        assertThat(ended.get(1).instance()).isEqualTo(1_000_000L); // first packet's time in µs
        assertThat(ended.get(1).flow().established()).isTrue();
    }

    @Test
    void treatsASynRetriedWithANewIsnBeforeEstablishmentAsTheSameConnection() {
        send(0, CLIENT, 40000, SERVER, 443, SYN, 100, 0, 0);
        send(1_000_000_000L, CLIENT, 40000, SERVER, 443, SYN, 555, 0, 0);
        send(1_000_001_000L, SERVER, 443, CLIENT, 40000, SYN | ACK, 7000, 556, 0);
        send(1_000_002_000L, CLIENT, 40000, SERVER, 443, ACK, 556, 7001, 0);
        tracker.flush();
        assertThat(ended).singleElement().satisfies(e -> {
            assertThat(e.flow().setup().synRetransmits).isEqualTo(1);
            assertThat(e.flow().established()).isTrue();
        });
    }

    @Test
    void endsAnIdleEstablishedFlowAfterItsTimeout() {
        connection(0, 40000, 100);
        // another flow keeps capture time moving; 301 s later the first one is swept as idle
        for (long s = 1; s <= 301; s++) {
            send(s * 1_000_000_000L, CLIENT, 50000, SERVER, 80, ACK, 1, 1, 0);
        }
        assertThat(ended)
                .singleElement()
                .satisfies(e -> assertThat(e.flow().end()).isEqualTo(TcpFlowEnd.IDLE));
        assertThat(tracker.liveFlows()).isEqualTo(1);
    }

    /** SYNs in the flood test; -Dflood.syns=1000000 for the full-size run (docs/reliability.md). */
    private static final int FLOOD = Integer.getInteger("flood.syns", 200_000);

    /**
     * A SYN flood: SYNs from random sources at 10^4/s. Half-open flows expire after the half-open
     * timeout (5 s here), so no more than ~5 s worth plus a sweep interval are ever held, and a
     * real connection in the middle of the flood is still analysed.
     */
    @Test
    void keepsStateBoundedUnderASynFloodAndStillAnalysesRealFlows() {
        FlowTracker tracker = new FlowTracker(
                AnalyzerConfig.DEFAULTS.withIdleTimeouts(300_000_000_000L, 5_000_000_000L),
                i -> TEST,
                (k, i, f) -> ended.add(new Ended(k, i, f)));
        this.tracker2 = tracker;
        SplittableRandom rnd = new SplittableRandom(7);
        int maxLive = 0;
        long step = 100_000L; // 10^4 SYNs per second
        for (int i = 0; i < FLOOD; i++) {
            long t = i * step;
            send(
                    t,
                    0x0b000000 | rnd.nextInt(1 << 24),
                    1024 + rnd.nextInt(60000),
                    SERVER,
                    443,
                    SYN,
                    rnd.nextLong(1L << 32),
                    0,
                    0);
            if (i == FLOOD / 2) {
                connection(t + 1, 40000, 100);
                send(t + 3000, CLIENT, 40000, SERVER, 443, ACK, 101, 7001, 1000);
                send(t + 4000, SERVER, 443, CLIENT, 40000, ACK, 7001, 1101, 0);
            }
            if ((i & 0xfff) == 0) {
                maxLive = Math.max(maxLive, tracker.liveFlows());
            }
        }
        assertThat(maxLive).isLessThanOrEqualTo(62_000); // (5 s half-open + 1 s sweep) × 10^4/s, plus slack
        tracker.flush();
        Ended real = ended.stream()
                .filter(e -> e.flow().client().port() == 40000
                        && java.nio.ByteBuffer.wrap(e.flow().client().address()).getInt() == CLIENT)
                .findFirst()
                .orElseThrow();
        assertThat(real.flow().established()).isTrue();
        assertThat(real.flow().clientToServer().dataBytes).isEqualTo(1000);
        assertThat(real.flow().clientToServer().rtt.count()).isEqualTo(1);
    }
}
