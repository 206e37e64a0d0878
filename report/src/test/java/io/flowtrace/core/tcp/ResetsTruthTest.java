package io.flowtrace.core.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.core.testing.CaptureRun;
import io.flowtrace.core.testing.TestData;
import io.flowtrace.core.testing.WireFlow;
import java.util.Map;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code resets} per direction against tshark: the rows of each connection with the RST flag
 * (tcp.flags & 0x04, what {@code tshark -r CAP -Y 'tcp.flags.reset==1'} lists) sent by the client and
 * by the server, read from the tshark file recorded next to each capture (testdata/tcp/README.md).
 * The captures are those of the committed ones with RSTs (iperf3 closes its data connection with
 * unread data: Linux answers with a reset, and one more for each segment still arriving).
 */
class ResetsTruthTest {

    @ParameterizedTest
    @ValueSource(
            strings = {
                "cubic-deepqueue.sender",
                "cubic-deepqueue.receiver",
                "reno-taildrop.sender",
                "reno-taildrop.receiver",
                "bbr-clean.sender",
                "ipv6-loss.receiver",
                "cubic-loss.sender",
                "bbr-loss.receiver"
            })
    void resetsPerDirectionAreTsharksRstRows(String capture) throws Exception {
        CaptureRun run = CaptureRun.of(TestData.file("tcp/" + capture + ".pcap.gz"));
        Map<String, WireFlow> wire = WireFlow.read(TestData.file("tcp/" + capture + ".tshark.tsv.gz"));
        SoftAssertions soft = new SoftAssertions();
        long wireTotal = 0;
        for (WireFlow f : wire.values()) {
            long client = 0;
            long server = 0;
            for (Map<String, String> r : f.rows) {
                if ((WireFlow.flags(r) & 0x04) != 0) {
                    if (f.fromClient(r)) {
                        client++;
                    } else {
                        server++;
                    }
                }
            }
            wireTotal += client + server;
            // every instance of the connection (a later one after port reuse is "client#instance")
            long c2s = 0;
            long s2c = 0;
            for (Map.Entry<String, Map<String, Object>> e : run.flows.entrySet()) {
                if (e.getKey().equals(f.client) || e.getKey().startsWith(f.client + "#")) {
                    c2s += (Long) e.getValue().get("c2s.resets");
                    s2c += (Long) e.getValue().get("s2c.resets");
                }
            }
            soft.assertThat(c2s).as("%s %s resets c2s", capture, f.client).isEqualTo(client);
            soft.assertThat(s2c).as("%s %s resets s2c", capture, f.client).isEqualTo(server);
        }
        soft.assertAll();
        assertThat(wireTotal).as("%s has RSTs to compare", capture).isPositive();
    }
}
