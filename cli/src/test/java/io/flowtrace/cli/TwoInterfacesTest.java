package io.flowtrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.flowtrace.core.testing.TestData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A pcapng with two interfaces that carry the same connections (testdata/tcp/two-interfaces.pcapng.gz:
 * 200 HTTP connections captured by dumpcap on both router interfaces, scripts/capture-two-interfaces.sh),
 * through the real {@code flowtrace analyze} process (each connection used to show twice with
 * nothing to tell the rows apart, and --services counted 400 connections for 200). Each interface is a
 * vantage: the default table says which interface a row is from, and --services counts each
 * connection once per interface. The truth is tshark's count of client SYNs per pcapng interface
 * ({@code two-interfaces.syn-per-interface.txt}, made with the capture), never flowtrace's output.
 */
class TwoInterfacesTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static Path capture;
    /** tshark: interface number -> client SYNs (SYN without ACK) seen on it. */
    private static Map<String, Integer> synsPerInterface;

    @BeforeAll
    static void truth() throws Exception {
        capture = TestData.file("tcp/two-interfaces.pcapng.gz");
        synsPerInterface = new TreeMap<>();
        // `sort | uniq -c` lines: "    200 0"
        for (String line : Files.readAllLines(TestData.file("tcp/two-interfaces.syn-per-interface.txt"))) {
            String[] f = line.trim().split("\\s+");
            synsPerInterface.put("if" + f[1], Integer.parseInt(f[0]));
        }
        // the capture is what the test needs: two interfaces, the same 200 connections on each
        assertThat(synsPerInterface).containsOnlyKeys("if0", "if1").containsValues(200, 200);
    }

    @Test
    void defaultTableSaysWhichInterfaceEachRowIsFrom() throws Exception {
        FlowtraceProcess.Result r =
                FlowtraceProcess.run("analyze", "-q", capture.toString()).assertNoStackTrace();

        assertThat(r.exit()).isZero();
        List<String> lines = r.stdoutLines();
        List<String> header = cells(lines.get(0));
        assertThat(header.subList(0, 3)).containsExactly("#", "interface", "client - server");
        List<List<String>> rows = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            if (!line.startsWith("(")) {
                rows.add(cells(line));
            }
        }
        Map<String, Integer> perInterface = rows.stream()
                .collect(Collectors.groupingBy(c -> c.get(1), TreeMap::new, Collectors.summingInt(c -> 1)));
        assertThat(perInterface).isEqualTo(synsPerInterface);
        // each connection once per interface: the same client - server pairs at both
        Map<String, List<String>> connections = rows.stream()
                .collect(Collectors.groupingBy(c -> c.get(1), Collectors.mapping(c -> c.get(2), Collectors.toList())));
        assertThat(connections.get("if0")).doesNotHaveDuplicates().hasSameElementsAs(connections.get("if1"));
        assertThat(lines.get(lines.size() - 1)).contains("interface: the capture interface the row was seen on");
    }

    @Test
    void longReportAndJsonNameTheVantageOfEachFlow() throws Exception {
        FlowtraceProcess.Result l = FlowtraceProcess.run("analyze", "-q", "-l", capture.toString());
        assertThat(l.exit()).isZero();
        Map<String, Integer> blocks = new TreeMap<>();
        Matcher m = Pattern.compile("^\\d+: \\S+ - \\S+ \\(vantage [^ ]*/(if\\d+), instance", Pattern.MULTILINE)
                .matcher(l.stdout());
        while (m.find()) {
            blocks.merge(m.group(1), 1, Integer::sum);
        }
        assertThat(blocks).isEqualTo(synsPerInterface);

        FlowtraceProcess.Result j = FlowtraceProcess.run("analyze", "-q", "--json", capture.toString());
        assertThat(j.exit()).isZero();
        Map<String, Integer> records = new TreeMap<>();
        for (String line : j.stdoutLines()) {
            String vantage = JSON.readTree(line).path("flow").path("vantage").asText();
            records.merge(vantage.substring(vantage.lastIndexOf('/') + 1), 1, Integer::sum);
        }
        assertThat(records).isEqualTo(synsPerInterface);
    }

    @Test
    void servicesCountEachConnectionOncePerInterface() throws Exception {
        FlowtraceProcess.Result t = FlowtraceProcess.run("analyze", "-q", "--services", capture.toString())
                .assertNoStackTrace();
        assertThat(t.exit()).isZero();
        List<String> lines = t.stdoutLines();
        assertThat(lines.get(0)).startsWith("service (server)             interface  flows established");
        Map<String, Integer> flows = new TreeMap<>();
        for (String line : lines.subList(1, 3)) {
            List<String> c = List.of(line.trim().split("\\s+"));
            assertThat(c.get(0)).isEqualTo("10.77.2.2:8080");
            flows.put(c.get(1), Integer.parseInt(c.get(2)));
            assertThat(c.get(3)).as("established").isEqualTo(c.get(2));
        }
        assertThat(flows).isEqualTo(synsPerInterface);
        assertThat(lines.get(3)).contains("a connection seen on two interfaces counts once at each");

        FlowtraceProcess.Result j = FlowtraceProcess.run("analyze", "-q", "--services", "--json", capture.toString());
        assertThat(j.exit()).isZero();
        Map<String, Integer> json = new TreeMap<>();
        for (String line : j.stdoutLines()) {
            JsonNode row = JSON.readTree(line);
            assertThat(row.path("service").asText()).isEqualTo("10.77.2.2:8080");
            json.put(row.path("interface").asText(), row.path("flows").asInt());
        }
        assertThat(json).isEqualTo(synsPerInterface);
    }

    @Test
    void oneInterfaceCaptureKeepsItsTableAndServicesAsTheyWere() throws Exception {
        Path single = TestData.file("tcp/cubic-loss.sender.pcap.gz");
        FlowtraceProcess.Result r = FlowtraceProcess.run("analyze", "-q", single.toString());
        assertThat(r.exit()).isZero();
        assertThat(cells(r.stdoutLines().get(0)).subList(0, 2)).containsExactly("#", "client - server");
        assertThat(r.stdout()).doesNotContain("interface");

        FlowtraceProcess.Result s = FlowtraceProcess.run("analyze", "-q", "--services", "--json", single.toString());
        assertThat(s.exit()).isZero();
        assertThat(s.stdout()).startsWith("{\"service\":").doesNotContain("\"interface\"");
    }

    /** The cells of a table line: separated by two or more spaces. */
    private static List<String> cells(String line) {
        return List.of(line.trim().split(" {2,}"));
    }
}
