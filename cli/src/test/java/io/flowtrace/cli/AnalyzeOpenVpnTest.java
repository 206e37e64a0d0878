package io.flowtrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code flowtrace analyze} on the committed OpenVPN captures (testdata/openvpn, 20 client runs
 * each): one JSON Lines object per session with the fields docs/metrics.md lists, and a
 * per-server setup table under {@code --services}.
 */
class AnalyzeOpenVpnTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void writesOneJsonObjectPerOpenVpnSessionWithTheDocumentedFields() throws Exception {
        List<String> lines = analyze("--json", testdata("openvpn/push-100k.client.pcap.gz"));
        assertThat(lines).hasSize(20);
        for (String line : lines) {
            JsonNode n = JSON.readTree(line);
            assertThat(n.get("protocol").asText()).isEqualTo("openvpn");
            assertThat(n.get("flow").get("client").asText()).startsWith("10.77.1.2:");
            assertThat(n.get("flow").get("server").asText()).isEqualTo("10.77.2.2:1194");
            assertThat(n.get("session").get("client_id").asText()).matches("[0-9a-f]{16}");
            assertThat(n.get("session").get("server_id").asText()).matches("[0-9a-f]{16}");
            assertThat(n.get("first_seen_us").asLong()).isPositive();
            assertThat(n.get("setup").get("completed").asBoolean()).isTrue();
            assertThat(n.get("setup").get("setup_us").asLong()).isPositive();
            for (String dir : new String[] {"c2s", "s2c"}) {
                JsonNode d = n.get(dir);
                assertThat(d.get("control_packets").asLong()).isPositive();
                assertThat(d.get("retransmit_gaps_us").size())
                        .isEqualTo(d.get("retransmits").asInt());
                assertThat(d.get("ack_latency_us").get("samples").asLong()).isPositive();
                assertThat(d.get("data_packets").asLong()).isPositive();
            }
        }
    }

    /**
     * The job writes sessions as OpenVpnSessionRecord (schemas' OpenVpnSessions mapping): every JSON
     * line of analyze must be that record path for path (flow.client → client, session.client_id →
     * client_id; the record's extra timeout_retransmit_times_ns aside), so the job's rows, checked
     * against the record in OpenVpnJobITCase, equal analyze --json.
     */
    @Test
    void jsonLinesAreTheSessionRecordsTheJobWrites() throws Exception {
        for (String c : new String[] {"push-1k", "push-100k"}) {
            String file = testdata("openvpn/" + c + ".client.pcap.gz");
            List<String> lines = analyze("--json", "--agent-id", "pin", file);
            io.flowtrace.core.openvpn.OpenVpnCaptureAnalysis.Summary summary;
            try (java.io.InputStream in = new java.util.zip.GZIPInputStream(Files.newInputStream(Path.of(file)))) {
                summary = new io.flowtrace.core.openvpn.OpenVpnCaptureAnalysis(
                                io.flowtrace.core.openvpn.OpenVpnWire.defaults(), i -> "pin/if" + i)
                        .run(in);
            }
            assertThat(lines).hasSameSizeAs(summary.sessions).hasSize(20);
            for (int i = 0; i < lines.size(); i++) {
                com.fasterxml.jackson.databind.node.ObjectNode record = (com.fasterxml.jackson.databind.node.ObjectNode)
                        JSON.readTree(io.flowtrace.avro.mapping.OpenVpnSessions.toAvro(
                                        summary.sessions.get(i), new io.flowtrace.avro.Vantage("pin", "if0"))
                                .toString());
                com.fasterxml.jackson.databind.node.ObjectNode line =
                        (com.fasterxml.jackson.databind.node.ObjectNode) JSON.readTree(lines.get(i));
                assertThat(line.remove("protocol").asText()).isEqualTo("openvpn");
                assertThat(line.remove("vantage").asText()).isEqualTo("pin/if0");
                JsonNode v = record.remove("vantage");
                assertThat(v.get("agent_id").asText() + "/"
                                + v.get("interface_name").asText())
                        .isEqualTo("pin/if0");
                JsonNode flow = line.remove("flow");
                JsonNode session = line.remove("session");
                line.set("client", flow.get("client"));
                line.set("server", flow.get("server"));
                line.set("client_id", session.get("client_id"));
                line.set("server_id", session.get("server_id"));
                ((com.fasterxml.jackson.databind.node.ObjectNode) record.get("c2s"))
                        .remove("timeout_retransmit_times_ns");
                ((com.fasterxml.jackson.databind.node.ObjectNode) record.get("s2c"))
                        .remove("timeout_retransmit_times_ns");
                assertThat(decimals(line)).as("%s session %d", c, i).isEqualTo(decimals(record));
            }
        }
    }

    /** The tree with every number as a BigDecimal without trailing zeros (2.0 and 2 compare equal). */
    private static Object decimals(JsonNode n) {
        if (n.isNumber()) {
            return n.decimalValue().stripTrailingZeros();
        }
        if (n.isObject()) {
            java.util.Map<String, Object> m = new java.util.TreeMap<>();
            n.fields().forEachRemaining(e -> m.put(e.getKey(), decimals(e.getValue())));
            return m;
        }
        if (n.isArray()) {
            List<Object> l = new ArrayList<>();
            n.forEach(e -> l.add(decimals(e)));
            return l;
        }
        return n.isNull() ? "null" : n.asText();
    }

    @Test
    void servicesShowTheSetupTablePerOpenVpnServer() {
        List<String> lines = analyze("--services", testdata("openvpn/push-1k.client.pcap.gz"));
        assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("openvpn server"));
        assertThat(lines).anySatisfy(l -> assertThat(l).matches("10\\.77\\.2\\.2:1194\\s+20\\s+20\\s.*"));
    }

    private static List<String> analyze(String... args) {
        PrintStream saved = System.out;
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(buffer, true, StandardCharsets.UTF_8));
            List<String> all = new ArrayList<>(List.of(args));
            all.add(0, "-q");
            all.add(0, "analyze");
            assertThat(new CommandLine(new FlowtraceCli()).execute(all.toArray(String[]::new)))
                    .isZero();
        } finally {
            System.setOut(saved);
        }
        return buffer.toString(StandardCharsets.UTF_8).lines().toList();
    }

    private static String testdata(String relative) {
        Path p = Path.of("..", "testdata").resolve(relative);
        return (Files.exists(p) ? p : Path.of("testdata").resolve(relative)).toString();
    }
}
