package io.flowtrace.core.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.flowtrace.core.testing.CaptureRun;
import io.flowtrace.core.testing.TestData;
import io.flowtrace.core.testing.WireFlow;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Metrics against the wire and the peers recorded next to each capture (testdata/tcp/README.md):
 * tshark's per-packet fields, tcptrace's RTT statistics, iperf3's receiver figure. Expected values
 * are computed here from those files, never from flowtrace.
 */
class WireTruthTest {

    /** Handshake RTT and setup time equal the wire's SYN → handshake ACK time within 2 µs. */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "short-http.sender",
                "short-http.receiver",
                "cubic-clean.sender",
                "cubic-clean.receiver",
                "zero-window.sender",
                "zero-window.receiver"
            })
    void handshakeRttAndSetupEqualTheWire(String capture) throws Exception {
        CaptureRun run = CaptureRun.of(TestData.file("tcp/" + capture + ".pcap.gz"));
        Map<String, WireFlow> wire = WireFlow.read(TestData.file("tcp/" + capture + ".tshark.tsv.gz"));
        SoftAssertions soft = new SoftAssertions();
        int compared = 0;
        for (WireFlow f : wire.values()) {
            double syn = -1;
            double synAck = -1;
            double ack = -1;
            int syns = 0;
            int synAcks = 0;
            for (Map<String, String> r : f.rows) {
                if (WireFlow.isSyn(r)) {
                    syns++;
                    syn = WireFlow.time(r);
                } else if (WireFlow.isSynAck(r)) {
                    synAcks++;
                    synAck = synAck < 0 ? WireFlow.time(r) : synAck;
                } else if (f.fromClient(r) && synAck >= 0 && ack < 0) {
                    ack = WireFlow.time(r);
                }
            }
            Map<String, Object> ours = run.flows.get(f.client);
            if (syns != 1 || synAcks != 1 || ack < 0 || ours == null) {
                continue; // retried handshakes: their rule is tested against the kernel's SYN timers
            }
            double wireUs = (ack - syn) * 1e6;
            soft.assertThat((Double) ours.get("setup.setup_us"))
                    .as("%s %s setup", capture, f.client)
                    .isCloseTo(wireUs, org.assertj.core.data.Offset.offset(2.0));
            soft.assertThat((Double) ours.get("setup.handshake_rtt_us"))
                    .as("%s %s handshake RTT", capture, f.client)
                    .isCloseTo(wireUs, org.assertj.core.data.Offset.offset(2.0));
            compared++;
        }
        soft.assertAll();
        assertThat(compared).isPositive();
    }

    /**
     * Throughput of the data connection against iperf3's receiver figure (flows ≥ 1 s), within 1 %: at
     * the receiver's vantage, and at the sender's where nothing was lost (there every byte the
     * receiver got passed the sender's tap first, and nothing else did).
     */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "cubic-clean.receiver",
                "cwnd-locked.receiver",
                "app-limited.receiver",
                "bbr-clean.receiver",
                "bbr-loss.receiver",
                "cubic-clean.sender",
                "cwnd-locked.sender",
                "app-limited.sender",
                "bbr-clean.sender"
            })
    void throughputIsIperf3sReceiverFigureWithinOnePercent(String capture) throws Exception {
        String c = capture.substring(0, capture.lastIndexOf('.'));
        double iperf = new ObjectMapper()
                .readTree(TestData.file("tcp/" + c + ".iperf3.json").toFile())
                .at("/end/sum_received/bits_per_second")
                .asDouble();
        CaptureRun run = CaptureRun.of(TestData.file("tcp/" + capture + ".pcap.gz"));
        Map<String, Object> data = run.flows.values().stream()
                .max(java.util.Comparator.comparingLong(f -> (Long) f.get("c2s.unique_bytes")))
                .orElseThrow();
        double ours = (Double) data.get("c2s.throughput_bps");
        assertThat(Math.abs(ours - iperf))
                .as("%s: flowtrace %.0f, iperf3 %.0f bit/s", capture, ours, iperf)
                .isLessThanOrEqualTo(0.01 * iperf);
    }

    /**
     * Linux's zero-window probe (no data, seq = snd_una − 1) is a keep-alive to tshark 4.0, which has
     * no window-probe flag for it: ours are exactly those sent while the peer's last advertised window
     * was 0, and probes + keep-alives equal tshark's keep-alives; zero windows equal tshark's.
     */
    @Test
    void countsWindowProbesAndZeroWindowsFromTheWire() throws Exception {
        for (String v : new String[] {"sender", "receiver"}) {
            CaptureRun run = CaptureRun.of(TestData.file("tcp/zero-window." + v + ".pcap.gz"));
            for (WireFlow f : WireFlow.read(TestData.file("tcp/zero-window." + v + ".tshark.tsv.gz"))
                    .values()) {
                Map<String, Object> ours = run.flows.get(f.client);
                int lastServerWindow = -1;
                long probes = 0;
                long tsharkKeepAlives = 0;
                long zeroWindows = 0;
                for (Map<String, String> r : f.rows) {
                    if (f.fromClient(r)) {
                        if (WireFlow.flagged(r, "keep_alive") || WireFlow.flagged(r, "zero_window_probe")) {
                            tsharkKeepAlives++;
                            probes += lastServerWindow == 0 ? 1 : 0;
                        }
                    } else {
                        lastServerWindow = Integer.parseInt(r.get("tcp.window_size_value"));
                        zeroWindows += WireFlow.flagged(r, "zero_window") ? 1 : 0;
                    }
                }
                assertThat(ours.get("c2s.window_probes"))
                        .as("%s %s window probes", v, f.client)
                        .isEqualTo(probes);
                assertThat((Long) ours.get("c2s.window_probes") + (Long) ours.get("c2s.keep_alives"))
                        .as("%s %s probes + keep-alives", v, f.client)
                        .isEqualTo(tsharkKeepAlives);
                assertThat(ours.get("s2c.zero_windows"))
                        .as("%s %s zero windows", v, f.client)
                        .isEqualTo(zeroWindows);
                if (f.rows.size() > 1000) {
                    assertThat(probes).as("the stalled reader was probed").isPositive();
                }
            }
        }
    }

    /**
     * Two captures of the same connection (sender's veth upstream of the router's drops, receiver's
     * veth downstream) give the truth at the receiver's vantage: a segment seen upstream and not
     * downstream was dropped; a segment arriving downstream after one that left upstream later
     * (matched by IPv4 id, unique per transmission) was reordered. A lost segment (new data beyond
     * the highest byte seen, tshark's rule) is a gap that is either a drop upstream or reordered
     * data still on its way; both counts must equal the truth per flow.
     * short-lowrtt is where a retransmission filling a hole in a flow's first segments was counted as
     * a late original (fewer than four ids learned, 15–100 µs RTT below the timing fallback's floor).
     * At the sender's vantage the same truth, taken with the sender's capture as "downstream" too,
     * is no gap and no reordering: the sender's own tap sees every segment in the order it left.
     */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "reorder.receiver",
                "reorder-lane.receiver",
                "short-lowrtt.receiver",
                "short-http.receiver",
                "short-conns.receiver",
                "cubic-loss.receiver",
                "bbr-loss.receiver",
                "reorder.sender",
                "reorder-lane.sender",
                "short-lowrtt.sender",
                "short-http.sender",
                "short-conns.sender",
                "cubic-loss.sender",
                "bbr-loss.sender"
            })
    void lostSegmentsAndReorderingEqualTheTwoCaptureTruth(String capture) throws Exception {
        String c = capture.substring(0, capture.lastIndexOf('.'));
        boolean receiver = capture.endsWith(".receiver");
        Map<String, WireFlow> up = WireFlow.read(TestData.file("tcp/" + c + ".sender.tshark.tsv.gz"));
        Map<String, WireFlow> down = WireFlow.read(TestData.file("tcp/" + capture + ".tshark.tsv.gz"));
        CaptureRun run = CaptureRun.of(TestData.file("tcp/" + capture + ".pcap.gz"));
        long lostTruth = 0;
        long reorderTruth = 0;
        long gapsDropped = 0;
        long gapsReordered = 0;
        long lost = 0;
        long reordered = 0;
        SoftAssertions soft = new SoftAssertions();
        for (WireFlow d : down.values()) {
            WireFlow u = up.get(d.client);
            Map<String, Object> ours = run.flows.get(d.client);
            if (u == null || ours == null) {
                continue;
            }
            Map<Integer, Integer> upPosition = new java.util.HashMap<>();
            List<long[]> upSegments = new java.util.ArrayList<>(); // start, end, ip id
            for (Map<String, String> r : u.rows) {
                if (u.fromClient(r) && WireFlow.len(r) > 0) {
                    int id = Integer.decode(r.get("ip.id"));
                    upPosition.put(id, upPosition.size());
                    long start = u.relative(r.get("tcp.seq_raw"));
                    upSegments.add(new long[] {start, start + WireFlow.len(r), id});
                }
            }
            java.util.Set<Integer> downIds = new java.util.HashSet<>();
            for (Map<String, String> r : d.rows) {
                if (d.fromClient(r) && WireFlow.len(r) > 0) {
                    downIds.add(Integer.decode(r.get("ip.id")));
                }
            }
            long flowLost = 0;
            long flowReordered = 0;
            long highest = 1; // the first data byte follows the SYN
            int latest = -1;
            for (Map<String, String> r : d.rows) {
                boolean fin = (WireFlow.flags(r) & 0x01) != 0; // a FIN beyond the highest byte shows a gap too
                if (!d.fromClient(r) || (WireFlow.len(r) == 0 && !fin)) {
                    continue;
                }
                long start = d.relative(r.get("tcp.seq_raw"));
                Integer position = WireFlow.len(r) > 0 ? upPosition.get(Integer.decode(r.get("ip.id"))) : null;
                if (start > highest) {
                    // the gap is real either way: dropped upstream, or still on its way (reordered)
                    boolean dropped = droppedUpstream(upSegments, downIds, highest);
                    flowLost++;
                    gapsDropped += dropped ? 1 : 0;
                    gapsReordered += dropped ? 0 : 1;
                }
                highest = Math.max(highest, start + WireFlow.len(r));
                if (position != null) {
                    flowReordered += position < latest ? 1 : 0;
                    latest = Math.max(latest, position);
                }
            }
            soft.assertThat(ours.get("c2s.lost_segments"))
                    .as("%s %s lost segments", c, d.client)
                    .isEqualTo(flowLost);
            soft.assertThat(ours.get("c2s.reordered_packets"))
                    .as("%s %s reordered", c, d.client)
                    .isEqualTo(flowReordered);
            lostTruth += flowLost;
            reorderTruth += flowReordered;
            lost += (Long) ours.get("c2s.lost_segments");
            reordered += (Long) ours.get("c2s.reordered_packets");
        }
        soft.assertAll();
        // a gap no drop explains must come with reordering: each was closed by a late original
        assertThat(gapsReordered).as("%s: gaps without a drop upstream", c).isLessThanOrEqualTo(reorderTruth);
        String totals = String.format(
                "%s: lost %d/%d (%d dropped upstream), reordered %d/%d",
                capture, lost, lostTruth, gapsDropped, reordered, reorderTruth);
        if (receiver) {
            assertThat(lostTruth + reorderTruth).as(totals).isPositive();
        } else {
            assertThat(lostTruth + reorderTruth).as(totals).isZero();
        }
    }

    /** Whether upstream sent the byte at {@code seq} in a segment that never arrived downstream. */
    private static boolean droppedUpstream(List<long[]> upSegments, java.util.Set<Integer> downIds, long seq) {
        for (long[] s : upSegments) {
            if (s[0] <= seq && seq < s[1] && !downIds.contains((int) s[2])) {
                return true;
            }
        }
        return false;
    }

    /**
     * TSO/GSO super-segments at the sender's tap and GRO-merged ones at the receiver's (offloads on):
     * every client payload larger than one wire segment (MSS 1460 announced, less 12 bytes of
     * timestamps = 1448) as tshark's tcp.len shows it.
     */
    @ParameterizedTest
    @ValueSource(strings = {"tso-on.sender", "tso-on.receiver", "cwnd-locked-tso.sender", "cwnd-locked-tso.receiver"})
    void countsSuperSegmentsAsTsharksSegmentLengthsShow(String capture) throws Exception {
        CaptureRun run = CaptureRun.of(TestData.file("tcp/" + capture + ".pcap.gz"));
        long expected = 0;
        long ours = 0;
        for (WireFlow f : WireFlow.read(TestData.file("tcp/" + capture + ".tshark.tsv.gz"))
                .values()) {
            for (Map<String, String> r : f.rows) {
                expected += f.fromClient(r) && WireFlow.len(r) > 1448 ? 1 : 0;
            }
            ours += (Long) run.flows.get(f.client).get("c2s.segment_sizes.above_mss");
        }
        assertThat(ours).as("%s super-segments", capture).isEqualTo(expected).isPositive();
    }

    /** rtt_us against tcptrace's RTT (0.1 ms resolution) for flows with ≥ 50 samples: 0.1 ms + 5 %. */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "cubic-loss",
                "cubic-deepqueue",
                "reno-taildrop",
                "cubic-clean",
                "cwnd-locked",
                "bbr-loss",
                "short-http",
                "reorder-lane",
                "rwnd-limited",
                "zero-window",
                "app-limited",
                "bbr-clean"
            })
    void rttAgreesWithTcptrace(String c) throws Exception {
        CaptureRun run = CaptureRun.of(TestData.file("tcp/" + c + ".sender.pcap.gz"));
        java.nio.file.Path txt = TestData.file("tcp/" + c + ".sender.tcptrace.txt");
        List<String> lines = Files.exists(txt)
                ? Files.readAllLines(txt)
                : new String(
                                new java.util.zip.GZIPInputStream(Files.newInputStream(
                                                TestData.file("tcp/" + c + ".sender.tcptrace.txt.gz")))
                                        .readAllBytes(),
                                java.nio.charset.StandardCharsets.UTF_8)
                        .lines()
                        .toList();
        SoftAssertions soft = new SoftAssertions();
        int compared = 0;
        String host = null;
        long samples = 0;
        for (String line : lines) {
            String t = line.trim();
            if (t.startsWith("TCP connection ")) {
                host = null; // tcptrace names the ends a/b, c/d, ...: the first host line is the client
            } else if (t.startsWith("host ") && host == null) {
                host = t.substring(t.indexOf(':') + 1).trim();
            } else if (t.startsWith("RTT samples:")) {
                samples = Long.parseLong(t.split("\\s+")[2]);
            } else if (t.startsWith("RTT avg:") && host != null && samples >= 50) {
                double tcptraceMs = Double.parseDouble(t.split("\\s+")[2]);
                Map<String, Object> ours = run.flows.get(host);
                double oursMs = ((Number) ours.get("c2s.rtt_us.avg")).doubleValue() / 1000;
                soft.assertThat(Math.abs(oursMs - tcptraceMs))
                        .as("%s %s rtt avg: flowtrace %.3f, tcptrace %.1f ms", c, host, oursMs, tcptraceMs)
                        .isLessThanOrEqualTo(0.1 + 0.05 * tcptraceMs);
                compared++;
            }
        }
        soft.assertAll();
        assertThat(compared).as("flows with ≥ 50 tcptrace samples in %s", c).isPositive();
    }
}
