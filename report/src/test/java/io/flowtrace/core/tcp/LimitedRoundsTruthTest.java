package io.flowtrace.core.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.flowtrace.core.testing.CaptureRun;
import io.flowtrace.core.testing.TestData;
import io.flowtrace.core.testing.Tsv;
import io.flowtrace.core.testing.WireFlow;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code rwnd_limited_rounds} and {@code app_limited_rounds}: the small rounds (2–6 segments) that
 * were not a stuck window, by what held the sender, against the sending kernel and the wire. Rounds
 * are HyStart's, from tshark's rows (a round ends at the first ACK at or past the highest sequence
 * sent when it began); a round is small when the most client data outstanding during it was 2–6
 * MSS; it was held by the congestion window when the data outstanding just before its ending ACK
 * reached the kernel's cwnd then (tcp_probe series, CASE.kernel.json), else by the receive window
 * when that data + 1 MSS exceeded the window of the server's previous advancing ACK (tshark's
 * tcp.window_size_value times the scale tshark applied, testdata/tcp/windows.tshark.tsv), else by
 * the application. rwnd-limited: a 16 KB receive buffer read at 1 MB/s; app-limited: iperf3 -b 2M
 * (testdata/tcp/README.md).
 */
class LimitedRoundsTruthTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The server announced MSS 1460; timestamps take 12 bytes of it. */
    private static final long MSS = 1448;

    @ParameterizedTest
    @CsvSource({"rwnd-limited", "app-limited"})
    void smallRoundsAreCountedByTheLimitTheKernelAndTheWireShow(String c) throws Exception {
        JsonNode flow = KernelSeriesTruthTest.bulk(
                JSON.readTree(TestData.file("tcp/" + c + ".kernel.json").toFile()));
        String client = flow.get("client").asText();
        JsonNode series = flow.get("probe").get("cwnd_series");
        WireFlow w = WireFlow.read(TestData.file("tcp/" + c + ".sender.tshark.tsv.gz"))
                .get(client);
        int scale = serverScale(c + ".sender", w.server);
        long highest = 1;
        long acked = 1;
        long endSeq = -1;
        long roundMax = 0;
        long window = -1;
        long previousWindow = -1;
        int rwnd = 0;
        int app = 0;
        int cwnd = 0;
        int rounds = 0;
        int synAckRounds = 0;
        for (Map<String, String> r : w.rows) {
            if (w.fromClient(r)) {
                if ((WireFlow.flags(r) & 0x01) != 0) {
                    // the FIN takes one sequence number: the ACK past it ends a round
                    highest = Math.max(highest, w.relative(r.get("tcp.seq_raw")) + WireFlow.len(r) + 1);
                }
                if (WireFlow.len(r) > 0) {
                    highest = Math.max(highest, w.relative(r.get("tcp.seq_raw")) + WireFlow.len(r));
                    roundMax = Math.max(roundMax, highest - acked);
                }
                continue;
            }
            if (WireFlow.isSynAck(r)) {
                // it ACKs the SYN: the first advancing ACK, where rounds begin; that first round ends
                // at the first data ACK, which begins the loop's rounds below
                synAckRounds = 1;
                continue;
            }
            window = Long.parseLong(r.get("tcp.window_size_value")) << scale;
            long ack = w.relative(r.get("tcp.ack_raw"));
            if ((WireFlow.flags(r) & 0x10) == 0 || ack <= acked) {
                continue;
            }
            long outstanding = highest - acked;
            acked = ack;
            if (endSeq < 0) {
                endSeq = highest;
                roundMax = highest - acked;
            } else if (ack >= endSeq) {
                rounds++;
                if (roundMax >= 2 * MSS && roundMax <= 6 * MSS) {
                    if (outstanding >= KernelSeriesTruthTest.cwndAt(series, WireFlow.time(r)) * MSS) {
                        cwnd++;
                    } else if (outstanding + MSS > previousWindow) {
                        rwnd++;
                    } else {
                        app++;
                    }
                }
                endSeq = highest;
                roundMax = highest - acked;
            }
            previousWindow = window;
        }

        CaptureRun run = CaptureRun.of(TestData.file("tcp/" + c + ".sender.pcap.gz"));
        // every round, HyStart's rule on tshark's rows (a round ends at the first advancing ACK at or
        // past the highest sequence sent, FIN included, when it began; the first starts at the first
        // advancing ACK, the SYN-ACK)
        assertThat(run.value(client, "c2s.rounds"))
                .as("%s: rounds on the wire %d + %d", c, rounds, synAckRounds)
                .isEqualTo(rounds + synAckRounds);
        long oursRwnd = run.value(client, "c2s.rwnd_limited_rounds");
        long oursApp = run.value(client, "c2s.app_limited_rounds");
        assertThat(rwnd + app)
                .as("%s: small rounds not held by cwnd on the wire", c)
                .isGreaterThanOrEqualTo(20);
        assertThat(cwnd).as("%s: the kernel's cwnd never held a small round", c).isZero();
        // the bar of docs/metrics.md: the named limit within 10 % of the truth, the other one exact
        assertThat(oursRwnd)
                .as("%s: flowtrace %d receive-window-limited rounds, truth %d", c, oursRwnd, rwnd)
                .isBetween(rwnd - rwnd / 10L, rwnd + rwnd / 10L);
        assertThat(oursApp)
                .as("%s: flowtrace %d application-limited rounds, truth %d", c, oursApp, app)
                .isBetween(app - app / 10L, app + app / 10L);
    }

    /** The scale tshark applied to the server's windows in this capture (testdata/tcp/windows.tshark.tsv). */
    private static int serverScale(String capture, String server) throws Exception {
        for (Map<String, String> t : Tsv.read(TestData.file("tcp/windows.tshark.tsv"))) {
            if (t.get("capture").equals(capture) && t.get("src").equals(server)) {
                return Integer.parseInt(t.get("scale"));
            }
        }
        throw new AssertionError("no window truth for " + server + " in " + capture);
    }
}
