package io.flowtrace.core.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowtrace.core.net.Endpoint;
import io.flowtrace.core.testing.Conversation;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import org.junit.jupiter.api.Test;

/**
 * The bound on the unacknowledged segments a flow keeps per direction
 * ({@link AnalyzerConfig#maxSegmentsPerDirection}), on hand-made segment streams: client ISN 1000,
 * segments of 100 bytes, the server never ACKs data, so every segment stays unacknowledged.
 */
class SegmentBoundTest {
    private static final long C = 1000;
    private static final long S = 5000;

    @Test
    void aQueueKeepsTheNewestSegmentsUpToItsLimitAndCountsTheDroppedOnes() {
        SegmentQueue q = new SegmentQueue();
        q.limit(4);
        for (int i = 0; i < 10; i++) {
            q.append(100L * i, 100L * (i + 1), i, i);
        }
        // 10 appended, 4 kept: the oldest 6 dropped, the last four [600, 1000) held
        assertThat(q.size()).isEqualTo(4);
        assertThat(q.overflowDrops()).isEqualTo(6);
        assertThat(q.start(0)).isEqualTo(600);
        assertThat(q.end(3)).isEqualTo(1000);
    }

    @Test
    void aQueueStoredUnderAHigherLimitShrinksToTheLowerOneAtItsNextInsert() throws Exception {
        SegmentQueue big = new SegmentQueue();
        for (int i = 0; i < 10; i++) {
            big.append(100L * i, 100L * (i + 1), i, i);
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        big.write(new DataOutputStream(bytes));
        SegmentQueue q = new SegmentQueue();
        q.read(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
        q.limit(4);
        assertThat(q.size()).as("read as stored").isEqualTo(10);
        q.append(1000, 1100, 10, 10);
        // 10 held + 1 new under a limit of 4: 7 dropped (the segments [0, 700)), [700, 1100) held
        assertThat(q.size()).isEqualTo(4);
        assertThat(q.overflowDrops()).isEqualTo(7);
        assertThat(q.start(0)).isEqualTo(700);
    }

    @Test
    void aFlowOverTheConfiguredBoundCountsTheDroppedSegmentsInItsStats() {
        TcpFlowAnalyzer bounded = flowWithClientSegments(AnalyzerConfig.DEFAULTS.withMaxSegmentsPerDirection(8), 20);
        // 20 unacknowledged segments, 8 kept: 12 overflows, none from the server (it sent no data)
        assertThat(bounded.clientToServer().stateOverflows).isEqualTo(12);
        assertThat(bounded.serverToClient().stateOverflows).isZero();
        assertThat(bounded.clientToServer().dataPackets).isEqualTo(20);
        assertThat(bounded.clientToServer().dataBytes).isEqualTo(2000);
        TcpFlowAnalyzer unbounded = flowWithClientSegments(AnalyzerConfig.DEFAULTS, 20);
        assertThat(unbounded.clientToServer().stateOverflows).isZero();
    }

    @Test
    void theBoundIsOneToTheHardCeiling() {
        assertThat(AnalyzerConfig.DEFAULTS.maxSegmentsPerDirection()).isEqualTo(32_768);
        assertThat(AnalyzerConfig.DEFAULTS.withMaxSegmentsPerDirection(1).maxSegmentsPerDirection())
                .isEqualTo(1);
        assertThatThrownBy(() -> AnalyzerConfig.DEFAULTS.withMaxSegmentsPerDirection(0))
                .hasMessageContaining("1 to 32768");
        assertThatThrownBy(() -> AnalyzerConfig.DEFAULTS.withMaxSegmentsPerDirection(32_769))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static TcpFlowAnalyzer flowWithClientSegments(AnalyzerConfig config, int segments) {
        TcpFlowAnalyzer flow = new TcpFlowAnalyzer(
                new Endpoint(Conversation.CLIENT, Conversation.CLIENT_PORT),
                new Endpoint(Conversation.SERVER, Conversation.SERVER_PORT),
                false,
                config);
        Conversation tcp = new Conversation(p -> flow.onPacket(p, e -> {}));
        tcp.handshake(0, 2000, C, S);
        for (int i = 0; i < segments; i++) {
            tcp.client(10_000 + 100L * i)
                    .seq(C + 1 + 100L * i)
                    .ack(S + 1)
                    .len(100)
                    .send();
        }
        return flow;
    }
}
