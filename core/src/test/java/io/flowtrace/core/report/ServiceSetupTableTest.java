package io.flowtrace.core.report;

import static io.flowtrace.core.pcap.DecodedPacket.SYN;
import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.core.net.Endpoint;
import io.flowtrace.core.tcp.AnalyzerConfig;
import io.flowtrace.core.tcp.TcpEventSink;
import io.flowtrace.core.tcp.TcpFlowAnalyzer;
import io.flowtrace.core.testing.Conversation;
import org.junit.jupiter.api.Test;

class ServiceSetupTableTest {

    private static TcpFlowAnalyzer flow(long setupMicros, int synRetries, long startMicros) {
        TcpFlowAnalyzer f = new TcpFlowAnalyzer(
                new Endpoint(Conversation.CLIENT, Conversation.CLIENT_PORT),
                new Endpoint(Conversation.SERVER, Conversation.SERVER_PORT),
                false,
                AnalyzerConfig.DEFAULTS);
        Conversation c = new Conversation(p -> f.onPacket(p, TcpEventSink.NONE));
        long t = startMicros;
        c.client(t).seq(100).flags(SYN).send();
        for (int i = 0; i < synRetries; i++) {
            t += 1_000_000L << i;
            c.client(t).seq(100).flags(SYN).send();
        }
        long done = startMicros + setupMicros;
        c.server(done - 1).seq(900).ack(101).flags(SYN).send();
        c.client(done).seq(101).ack(901).send();
        return f;
    }

    @Test
    void computesSeed000sTableFromFlows() {
        ServiceSetupTable table = new ServiceSetupTable();
        // setup times 1, 2, 3, 4 ms and one 3 s (two SYN retries at +1 s and +3 s)
        table.add("if0", flow(1000, 0, 0));
        table.add("if0", flow(2000, 0, 10));
        table.add("if0", flow(3000, 0, 20));
        table.add("if0", flow(4000, 0, 30));
        table.add("if0", flow(3_000_100, 2, 40));
        ServiceSetupTable.Row row = table.rows().get(0);
        assertThat(row.service()).isEqualTo("10.0.0.2:5201");
        assertThat(row.flows()).isEqualTo(5);
        assertThat(row.established()).isEqualTo(5);
        // mean = (1000 + 2000 + 3000 + 4000 + 3000100) / 5 µs = 602020 µs
        assertThat(row.meanUs()).isCloseTo(602_020.0, org.assertj.core.data.Offset.offset(0.01));
        // population sd: sqrt(mean of squares - mean²)
        double sq = (1e6 + 4e6 + 9e6 + 16e6 + 3_000_100.0 * 3_000_100.0) / 5;
        assertThat(row.sdUs())
                .isCloseTo(Math.sqrt(sq - 602_020.0 * 602_020.0), org.assertj.core.data.Offset.offset(1.0));
        assertThat(row.p50Us()).isEqualTo(3000.0); // nearest rank: 3rd of 5
        assertThat(row.p99Us()).isEqualTo(3_000_100.0);
        assertThat(row.synRetransmits()).isEqualTo(2);
        assertThat(row.flowsWithSynRetransmits()).isEqualTo(1);
        assertThat(row.synchronisedRetries()).isZero();
    }

    @Test
    void flagsRetriesOfDifferentFlowsWithinFiveMillisecondsAsSynchronised() {
        ServiceSetupTable table = new ServiceSetupTable();
        table.add("if0", flow(1_500_000, 1, 0));
        table.add("if0", flow(1_500_000, 1, 3_000)); // its retry comes 3 ms after the first flow's
        table.add("if0", flow(1_500_000, 1, 500_000));
        assertThat(table.rows().get(0).synchronisedRetries()).isEqualTo(2);
    }

    @Test
    void countsAConnectionSeenOnTwoInterfacesOnceAtEach() {
        ServiceSetupTable table = new ServiceSetupTable();
        // one connection at two capture points: 2 ms of setup where the client is, 1 ms at the server's side
        table.add("if1", flow(1000, 0, 1));
        table.add("if0", flow(2000, 0, 0));
        assertThat(table.rows())
                .extracting(ServiceSetupTable.Row::service, ServiceSetupTable.Row::iface, ServiceSetupTable.Row::flows)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("10.0.0.2:5201", "if0", 1L),
                        org.assertj.core.groups.Tuple.tuple("10.0.0.2:5201", "if1", 1L));
        assertThat(table.rows()).extracting(ServiceSetupTable.Row::meanUs).containsExactly(2000.0, 1000.0);
    }
}
