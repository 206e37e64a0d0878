package io.flowtrace.cli.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.flowtrace.cli.FlowtraceProcess;
import io.flowtrace.core.testing.TestData;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code analyze --report DIR --flow CLIENT-SERVER} draws, read from the data embedded in the
 * page the real process wrote, against tshark's and tcptrace's view of the same capture
 * (testdata/tcp/cubic-loss.sender.tshark.tsv.gz, .tcptrace.txt; testdata/tcp/README.md): the one
 * selected flow, every data segment, retransmissions coloured by class, every ACK with its
 * advertised-window line, the SACK blocks, and a throughput graph that adds up to what was ACKed.
 */
class ReportDataTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CLIENT = "10.77.1.2:35534";
    private static final String SERVER = "10.77.2.2:5201";
    // testdata/tcp/cubic-loss.sender.tcptrace.txt, connection 2 (c = 10.77.1.2:35534, d = 10.77.2.2:5201)
    private static final int TCPTRACE_REXMT_DATA_PKTS_C2D = 36;
    private static final int TCPTRACE_SACK_PKTS_D2C = 381;
    private static final int TCPTRACE_MAX_SACK_BLKS_D2C = 3;
    private static final int TCPTRACE_ADV_WIND_SCALE_D = 10;

    @TempDir
    static Path dir;

    private static FlowtraceProcess.Result run;
    private static JsonNode flow;

    @BeforeAll
    static void report() throws Exception {
        run = FlowtraceProcess.run(
                        "analyze",
                        "--report",
                        dir.resolve("out").toString(),
                        "--flow",
                        CLIENT + "-" + SERVER,
                        TestData.file("tcp/cubic-loss.sender.pcap.gz").toString())
                .assertNoStackTrace();
        assertThat(run.exit()).as(run.stderr()).isZero();
        Path page = dir.resolve("out/index.html");
        assertThat(run.stderr()).contains("flowtrace analyze: report of 1 flow: " + page);
        String html = Files.readString(page, StandardCharsets.UTF_8);
        Matcher m = Pattern.compile(
                        "<script type=\"application/json\" id=\"report-data\">(.*?)</script>", Pattern.DOTALL)
                .matcher(html);
        assertThat(m.find()).isTrue();
        JsonNode sections = JSON.readTree(m.group(1).replace("<\\/", "</"));
        assertThat(sections).hasSize(1);
        assertThat(sections.get(0).get("flows")).as("only the --flow").hasSize(1);
        flow = sections.get(0).get("flows").get(0);
    }

    @Test
    void drawsTheSelectedFlow() {
        assertThat(flow.get("title").asText()).contains(CLIENT).contains(SERVER);
    }

    @Test
    void everyDataSegmentIsDrawnAndTheRetransmissionsAreColouredByClass() throws Exception {
        long tsharkDataSegments =
                tshark().stream().filter(p -> p.from(CLIENT) && p.len > 0).count();
        // every segment is drawn, in the column of its class: the original data, or a retransmission's class
        long segments = flow.get("segments").get("t_us").size();
        long retransmissions = flow.get("retransmissions").get("index").size();
        assertThat(flow.get("retransmissions").get("class")).hasSize((int) retransmissions);
        for (JsonNode c : flow.get("retransmissions").get("class")) {
            assertThat(c.asInt()).isBetween(0, flow.get("classes").size() - 1);
        }
        long drawn = segments - retransmissions;
        assertThat(drawn + retransmissions).isEqualTo(tsharkDataSegments);
        assertThat(retransmissions).isEqualTo(TCPTRACE_REXMT_DATA_PKTS_C2D);
    }

    @Test
    void everyAckIsDrawnWithTheWindowItAdvertisesScaledAsTheHandshakeSaid() throws Exception {
        List<Long> tsharkWindows = new ArrayList<>();
        for (Packet p : tshark()) {
            if (p.from(SERVER) && (p.flags & 0x10) != 0) {
                // RFC 7323 §2.2: the window of a SYN segment is never scaled
                tsharkWindows.add((p.flags & 0x02) != 0 ? p.window : p.window << TCPTRACE_ADV_WIND_SCALE_D);
            }
        }
        // the receive-window line is drawn at ACK + window for each ACK
        List<Long> drawnWindows = undelta(flow.get("acks").get("window"));
        assertThat(flow.get("acks").get("t_us")).hasSize(drawnWindows.size());
        assertThat(drawnWindows).isEqualTo(tsharkWindows);
    }

    @Test
    void sackBlocksAreThoseOfEveryAckThatCarriedThem() {
        java.util.Map<Long, Integer> blocksPerAck = new java.util.HashMap<>();
        JsonNode sack = flow.get("sack");
        List<Long> times = undelta(sack.get("t_us"));
        for (int i = 0; i < times.size(); i++) {
            assertThat(sack.get("width").get(i).asLong())
                    .as("right edge after left edge")
                    .isPositive();
            blocksPerAck.merge(times.get(i), 1, Integer::sum);
        }
        assertThat(blocksPerAck).hasSize(TCPTRACE_SACK_PKTS_D2C);
        assertThat(blocksPerAck.values().stream()
                        .mapToInt(Integer::intValue)
                        .max()
                        .orElse(0))
                .isEqualTo(TCPTRACE_MAX_SACK_BLKS_D2C);
    }

    @Test
    void throughputOverTimeAddsUpToWhatTheReceiverAcked() throws Exception {
        long first = -1;
        long highest = 0;
        for (Packet p : tshark()) {
            if (p.from(SERVER) && (p.flags & 0x10) != 0) {
                if (first < 0) {
                    first = p.ack;
                }
                highest = Math.max(highest, (p.ack - first) & 0xffffffffL);
            }
        }
        JsonNode t = flow.get("throughput");
        long sum = 0;
        for (JsonNode b : t.get("bytes")) {
            sum += b.asLong();
        }
        assertThat(sum).isEqualTo(highest).isPositive();
        assertThat(t.get("x")).hasSize(t.get("bytes").size());
        assertThat(t.get("bytes").size()).isBetween(2, 101);
        assertThat(t.get("interval_s").asDouble()).isPositive();
    }

    /** A delta-coded column of the page's data (InteractiveReport's FlowGraphJson): the running sums. */
    private static List<Long> undelta(JsonNode column) {
        List<Long> out = new ArrayList<>();
        long v = 0;
        for (JsonNode d : column) {
            v += d.asLong();
            out.add(v);
        }
        return out;
    }

    /** One row of the tshark TSV: the columns these tests read (header of testdata/tcp/README.md). */
    private record Packet(String src, int srcPort, long ack, int len, int flags, long window) {
        boolean from(String endpoint) {
            return endpoint.equals(src + ":" + srcPort);
        }
    }

    private static List<Packet> tshark() throws Exception {
        List<Packet> out = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(
                new GZIPInputStream(Files.newInputStream(TestData.file("tcp/cubic-loss.sender.tshark.tsv.gz"))),
                StandardCharsets.UTF_8))) {
            List<String> header = List.of(r.readLine().split("\t", -1));
            int src = header.indexOf("ip.src");
            int sport = header.indexOf("tcp.srcport");
            int dst = header.indexOf("ip.dst");
            int dport = header.indexOf("tcp.dstport");
            int ack = header.indexOf("tcp.ack_raw");
            int len = header.indexOf("tcp.len");
            int flags = header.indexOf("tcp.flags");
            int window = header.indexOf("tcp.window_size_value");
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                String[] f = line.split("\t", -1);
                if (f[sport].isEmpty()) {
                    continue; // not TCP
                }
                String a = f[src] + ":" + f[sport];
                String b = f[dst] + ":" + f[dport];
                boolean ours = (a.equals(CLIENT) && b.equals(SERVER)) || (a.equals(SERVER) && b.equals(CLIENT));
                if (ours) {
                    out.add(new Packet(
                            f[src],
                            Integer.parseInt(f[sport]),
                            Long.parseLong(f[ack]),
                            Integer.parseInt(f[len]),
                            Integer.decode(f[flags]),
                            Long.parseLong(f[window])));
                }
            }
        }
        return out;
    }
}
