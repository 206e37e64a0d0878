package io.flowtrace.core.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.flowtrace.core.testing.CaptureRun;
import io.flowtrace.core.testing.TestData;
import io.flowtrace.core.testing.Tsv;
import io.flowtrace.core.testing.WireFlow;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.SoftAssertions;
import org.assertj.core.data.Offset;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The report fields no other truth test held: packet and byte counts, segment sizes, first and last
 * packet, how the flow ended and the MSS option against tshark's rows of the same file (both
 * vantages), DSACKs against the TcpExt counters of the namespace that sent and the one that received
 * them, and the retransmission classes summed per case against the sender kernel's congestion state
 * at each tcp_retransmit_skb.
 */
class ReportFieldsTruthTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The lab's veth MTU is 1500: an IPv4 SYN announces 1500 − 20 (IP) − 20 (TCP) = 1460. */
    private static final long LAB_MSS_IPV4 = 1460;
    /** What one segment carries at that MSS with timestamps on (10-byte option, padded to 12). */
    private static final int SEGMENT_WITH_TIMESTAMPS = 1448;

    @ParameterizedTest
    @ValueSource(
            strings = {
                "cubic-loss.sender",
                "cubic-loss.receiver",
                "short-http.sender",
                "short-http.receiver",
                "zero-window.sender",
                "zero-window.receiver",
                "http-both.sender",
                "http-both.receiver",
                "tso-on.sender",
                "tso-on.receiver"
            })
    void packetsBytesSizesTimesEndAndMssAreTsharks(String capture) throws Exception {
        CaptureRun run = CaptureRun.of(TestData.file("tcp/" + capture + ".pcap.gz"));
        Map<String, WireFlow> wire = WireFlow.read(TestData.file("tcp/" + capture + ".tshark.tsv.gz"));
        SoftAssertions soft = new SoftAssertions();
        int compared = 0;
        for (WireFlow f : wire.values()) {
            Map<String, Object> ours = run.flows.get(f.client);
            assertThat(ours).as("%s %s reported", capture, f.client).isNotNull();
            if (run.flows.containsKey(f.client + "#2")) {
                continue; // the client port was reused: tshark's rows of the two instances are one list here
            }
            for (boolean fromClient : new boolean[] {true, false}) {
                String side = fromClient ? "c2s" : "s2c";
                long packets = 0;
                long bytes = 0;
                long[] sizes = new long[5];
                for (Map<String, String> r : f.rows) {
                    if (f.fromClient(r) != fromClient) {
                        continue;
                    }
                    packets++;
                    int len = WireFlow.len(r);
                    bytes += len;
                    if (len > 0) {
                        sizes[
                                len < 100
                                        ? 0
                                        : len < 536 ? 1 : len < 1200 ? 2 : len <= SEGMENT_WITH_TIMESTAMPS ? 3 : 4]++;
                    }
                }
                String at = capture + " " + f.client + " " + side;
                soft.assertThat(ours.get(side + ".packets"))
                        .as("%s packets", at)
                        .isEqualTo(packets);
                soft.assertThat(ours.get(side + ".data_bytes"))
                        .as("%s data bytes", at)
                        .isEqualTo(bytes);
                String[] buckets = {
                    ".segment_sizes.lt100",
                    ".segment_sizes.lt536",
                    ".segment_sizes.lt1200",
                    ".segment_sizes.le_mss",
                    ".segment_sizes.above_mss"
                };
                for (int i = 0; i < buckets.length; i++) {
                    soft.assertThat(ours.get(side + buckets[i]))
                            .as("%s%s", at, buckets[i])
                            .isEqualTo(sizes[i]);
                }
                soft.assertThat(ours.get(side + ".mss")).as("%s MSS option", at).isEqualTo(LAB_MSS_IPV4);
            }
            double first = WireFlow.time(f.rows.get(0));
            double last = WireFlow.time(f.rows.get(f.rows.size() - 1));
            soft.assertThat(((Number) ours.get("first_seen_us")).doubleValue())
                    .as("%s %s first packet", capture, f.client)
                    .isCloseTo(first * 1e6, Offset.offset(1.0));
            // the instance is named by its first packet's capture time (docs/metrics.md)
            soft.assertThat(((Number) ours.get("flow.instance")).doubleValue())
                    .as("%s %s instance", capture, f.client)
                    .isCloseTo(first * 1e6, Offset.offset(1.0));
            soft.assertThat(((Number) ours.get("last_seen_us")).doubleValue())
                    .as("%s %s last packet", capture, f.client)
                    .isCloseTo(last * 1e6, Offset.offset(1.0));
            boolean rst = f.rows.stream().anyMatch(r -> (WireFlow.flags(r) & 0x04) != 0);
            boolean fin = f.rows.stream().anyMatch(r -> (WireFlow.flags(r) & 0x01) != 0);
            soft.assertThat(ours.get("end"))
                    .as("%s %s end (FIN %s, RST %s)", capture, f.client, fin, rst)
                    .isEqualTo(rst ? "rst" : fin ? "fin" : "open");
            soft.assertThat(ours.get("flow.client_guessed"))
                    .as("%s %s: the SYN is in the capture", capture, f.client)
                    .isEqualTo(false);
            compared++;
        }
        soft.assertAll();
        assertThat(compared).as("%s flows compared", capture).isPositive();
    }

    /**
     * DSACKs (RFC 2883) a side sent: TCPDSACKOldSent + TCPDSACKOfoSent of its namespace; the ones that
     * reached the peer: the peer's TCPDSACKRecv + TCPDSACKOfoRecv. Loss is client → server only in
     * these cases, so the server's DSACK ACKs all reach the client: both taps see every one.
     */
    @ParameterizedTest
    @CsvSource({
        "reorder-lane, sender",
        "reorder-lane, receiver",
        "reorder, sender",
        "reorder, receiver",
        "zero-window, sender",
        "zero-window, receiver",
        "rwnd-limited, sender",
        "cubic-deepqueue, sender",
        "short-lowrtt, sender",
        "cubic-loss, sender"
    })
    void dsacksAreTheKernelsDsacksSent(String c, String vantage) throws Exception {
        JsonNode ns = JSON.readTree(TestData.file("tcp/" + c + ".counters.json").toFile())
                .get("namespaces");
        CaptureRun run = CaptureRun.of(TestData.file("tcp/" + c + "." + vantage + ".pcap.gz"));
        long oursC2s = 0;
        long oursS2c = 0;
        for (String client : run.flows.keySet()) {
            oursC2s += run.value(client, "c2s.dsacks");
            oursS2c += run.value(client, "s2c.dsacks");
        }
        assertThat(oursS2c)
                .as(
                        "%s %s: server's DSACKs (kernel sent %s, client received %s)",
                        c, vantage, dsacks(ns, "server", "Sent"), dsacks(ns, "client", "Recv"))
                .isEqualTo(dsacks(ns, "server", "Sent"))
                .isEqualTo(dsacks(ns, "client", "Recv"));
        // the client's DSACKs (for the server's retransmitted ACK-only data, e.g. a FIN) leave the
        // client's tap before any drop
        if (vantage.equals("sender")) {
            assertThat(oursC2s).as("%s client's DSACKs", c).isEqualTo(dsacks(ns, "client", "Sent"));
        }
    }

    private static long dsacks(JsonNode ns, String side, String way) {
        JsonNode h = ns.get(side).get("highlights");
        return way.equals("Sent")
                ? h.get("TcpExt.TCPDSACKOldSent").asLong()
                        + h.get("TcpExt.TCPDSACKOfoSent").asLong()
                : h.get("TcpExt.TCPDSACKRecv").asLong()
                        + h.get("TcpExt.TCPDSACKOfoRecv").asLong();
    }

    /**
     * The classes summed over a case: the kernel's congestion state at each retransmission (Loss →
     * rto, Recovery → fast, Open/Disorder/CWR → a probe or an early retransmit: tlp + other), at the
     * sender's vantage; the bar is KernelTruthTest's per-retransmission one (≥ 90 % agree, one may
     * differ when few), so each sum is within max(1, 10 % of the case's retransmissions).
     */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "cubic-loss",
                "bbr-loss",
                "reno-taildrop",
                "short-conns",
                "short-lowrtt",
                "short-http",
                "reorder-lane",
                "tso-on",
                "ipv6-loss",
                "zero-window",
                "http-both"
            })
    void retransmissionClassesSumToTheKernelsStates(String c) throws Exception {
        JsonNode truth =
                JSON.readTree(TestData.file("tcp/" + c + ".kernel.json").toFile());
        String sender = truth.get("data_sender").asText();
        String side = sender.equals("client") ? "c2s" : "s2c";
        CaptureRun run = CaptureRun.of(TestData.file("tcp/" + c + ".sender.pcap.gz"));
        List<Map<String, String>> frames = Tsv.read(TestData.file("tcp/" + c + ".sender.tshark.tsv.gz"));
        SoftAssertions soft = new SoftAssertions();
        long kRto = 0;
        long kFast = 0;
        long kOther = 0;
        long ours = 0;
        long oRto = 0;
        long oFast = 0;
        long oProbe = 0;
        long oSpurious = 0;
        for (JsonNode flow : truth.get("flows")) {
            long kBytes = 0;
            long kPackets = 0;
            for (JsonNode r : flow.get("retransmits")) {
                if (!r.get("side").asText().equals(sender)
                        || !r.get("kind").asText().equals("data")) {
                    continue;
                }
                // the payload of the frame the kernel's tcp_retransmit_skb was matched to
                Map<String, String> frame = frames.get(r.get("frame").asInt() - 1);
                assertThat(frame.get("frame.number")).isEqualTo(r.get("frame").asText());
                kBytes += WireFlow.len(frame);
                kPackets++;
                switch (r.get("class").asText()) {
                    case "rto" -> kRto++;
                    case "fast" -> kFast++;
                    default -> kOther++;
                }
            }
            String client = flow.get("client").asText();
            // KernelTruthTest's bar for the count (1 %), in full segments for the bytes
            soft.assertThat(Math.abs(run.value(client, side + ".retransmitted_bytes") - kBytes))
                    .as("%s %s retransmitted bytes, kernel's frames %d", c, client, kBytes)
                    .isLessThanOrEqualTo(kPackets / 100 * 1448);
            ours += run.value(client, side + ".retransmitted_packets");
            oRto += run.value(client, side + ".retransmits.rto");
            oFast += run.value(client, side + ".retransmits.fast");
            oProbe += run.value(client, side + ".retransmits.tlp") + run.value(client, side + ".retransmits.other");
            oSpurious += run.value(client, side + ".retransmits.spurious");
        }
        long total = kRto + kFast + kOther;
        assertThat(total).as("%s: the kernel retransmitted data", c).isPositive();
        long slack = Math.max(1, total / 10);
        String why = String.format(
                java.util.Locale.ROOT,
                "%s kernel rto %d fast %d other %d; flowtrace rto %d fast %d tlp+other %d spurious %d",
                c,
                kRto,
                kFast,
                kOther,
                oRto,
                oFast,
                oProbe,
                oSpurious);
        soft.assertThat(Math.abs(oRto - kRto)).as("rto: " + why).isLessThanOrEqualTo(slack);
        soft.assertThat(Math.abs(oFast - kFast)).as("fast: " + why).isLessThanOrEqualTo(slack);
        soft.assertThat(Math.abs(oProbe - kOther)).as("tlp+other: " + why).isLessThanOrEqualTo(slack);
        // the report's rule: retransmitted_packets is the sum of the classes (docs/metrics.md)
        soft.assertThat(oRto + oFast + oProbe + oSpurious).as("sum: " + why).isEqualTo(ours);
        soft.assertAll();
    }
}
