package io.flowtrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.flowtrace.core.testing.AnyBridgeCapture;
import io.flowtrace.core.testing.AnyBridgeCapture.Seen;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * tcpdump on Linux's {@code any} device of a node with bridged pods (testdata/tcp/any-bridge.pcap.gz,
 * scripts/capture-any-bridge.sh) through the real {@code flowtrace analyze} process: every packet is in
 * the capture once per interface it crossed, and each connection used to be one flow with both copies
 * (twice the packets, s2c {@code data_bytes} 40,000 for {@code unique_bytes} 20,000). Each interface of
 * {@code any} is now a vantage of its own, whose flow counts exactly what tshark counts at that
 * interface ({@code sll.ifindex}) and the 20,000 bytes the script's server sent, once.
 */
class AnyInterfaceAnalyzeTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void eachInterfaceIsAFlowWithOneInterfacesPacketsAndBytes() throws Exception {
        Map<String, String> expected = new TreeMap<>();
        for (Seen s : AnyBridgeCapture.truth()) {
            expected.merge(
                    "if" + s.ifindex() + " " + s.connection(),
                    (s.fromClient() ? "c2s " : "s2c ") + s.packets() + " packets " + s.payloadBytes() + " bytes",
                    (a, b) -> a.startsWith("c2s") ? a + ", " + b : b + ", " + a);
        }
        assertThat(expected).hasSize(4); // two connections, two interfaces each

        FlowtraceProcess.Result r = FlowtraceProcess.run(
                        "analyze", "-q", "--json", AnyBridgeCapture.file().toString())
                .assertNoStackTrace();

        assertThat(r.exit()).isZero();
        Map<String, String> got = new TreeMap<>();
        for (String line : r.stdoutLines()) {
            JsonNode flow = JSON.readTree(line);
            String vantage = flow.path("flow").path("vantage").asText();
            JsonNode c2s = flow.path("c2s");
            JsonNode s2c = flow.path("s2c");
            got.put(
                    vantage.substring(vantage.lastIndexOf('/') + 1) + " "
                            + flow.path("flow").path("client").asText() + " "
                            + flow.path("flow").path("server").asText(),
                    "c2s " + c2s.path("packets").asLong() + " packets "
                            + c2s.path("data_bytes").asLong()
                            + " bytes, s2c " + s2c.path("packets").asLong() + " packets "
                            + s2c.path("data_bytes").asLong() + " bytes");
            // the server's 20,000 bytes once: no copy counted as a duplicate or a retransmission
            assertThat(s2c.path("unique_bytes").asLong()).isEqualTo(AnyBridgeCapture.RESPONSE_BYTES);
            for (JsonNode direction : List.of(c2s, s2c)) {
                assertThat(direction.path("retransmitted_packets").asLong()).isZero();
                assertThat(direction.path("network_duplicates").asLong()).isZero();
            }
        }
        assertThat(got).isEqualTo(expected);
    }

    @Test
    void theTableSaysWhichInterfaceEachRowIsFrom() throws Exception {
        FlowtraceProcess.Result r = FlowtraceProcess.run(
                        "analyze", "-q", AnyBridgeCapture.file().toString())
                .assertNoStackTrace();

        assertThat(r.exit()).isZero();
        List<String> lines = r.stdoutLines();
        assertThat(List.of(lines.get(0).trim().split(" {2,}")).subList(0, 3))
                .containsExactly("#", "interface", "client - server");
        Map<String, Integer> rowsPerInterface = new TreeMap<>();
        for (String line : lines.subList(1, lines.size())) {
            if (!line.startsWith("(")) {
                rowsPerInterface.merge(List.of(line.trim().split(" {2,}")).get(1), 1, Integer::sum);
            }
        }
        Map<String, Integer> expected = new TreeMap<>();
        for (Seen s : AnyBridgeCapture.truth()) {
            if (s.fromClient()) {
                expected.merge("if" + s.ifindex(), 1, Integer::sum);
            }
        }
        assertThat(rowsPerInterface).isEqualTo(expected);
    }
}
