package io.flowtrace.core.openvpn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The OpenVPN analysis of the real runs of scripts/openvpn-capture.sh (OpenVPN 2.6, 1 % loss each
 * way, tbf 1 Mbit/s / 200 kbit/s), checked against two independent sources: each client's own log
 * (its "Initialization Sequence Completed" time, on the capture's clock) and tshark's decode of the
 * same capture (message packet-ids per session id, from which retransmissions and their gaps are
 * counted here by hand).
 */
class OpenVpnCaptureTruthTest {
    /**
     * The first data packet is the route-up hook's datagram, sent after the client logged its
     * completion: fork + exec of a shell, 0.05-70 ms here on a loaded 2-core machine.
     */
    private static final long HOOK_DELAY_MAX_US = 100_000;
    /**
     * The same for the tls-auth, tls-crypt and tcp runs, recorded while builds loaded both cores:
     * 19-269 ms (medians 65-117 ms).
     */
    private static final long LOADED_HOOK_DELAY_MAX_US = 300_000;

    private static OpenVpnCaptureAnalysis.Summary analyse(String name) throws IOException {
        try (InputStream in = OpenVpnCaptures.pcap(name)) {
            return new OpenVpnCaptureAnalysis(OpenVpnWire.defaults(), i -> "test").run(in);
        }
    }

    /** Both capture points of the runs whose control channel is in clear (plain and tls-auth). */
    static Stream<String> clearControlCaptures() {
        return Stream.of(
                "push-1k.client",
                "push-1k.server",
                "push-100k.client",
                "push-100k.server",
                "tls-auth-sha1.push-1k.client",
                "tls-auth-sha1.push-1k.server",
                "tls-auth-sha256.push-1k.client",
                "tls-auth-sha256.push-1k.server");
    }

    @ParameterizedTest
    @MethodSource("clearControlCaptures")
    void retransmissionCountsAndGapsEqualTsharksPacketIds(String capture) throws IOException {
        // by hand from tshark: per sender session id, control opcodes only (not P_ACK_V1 5, not data 6/9),
        // a message packet-id seen again is a retransmission; its gap is the time since the previous copy
        Map<String, List<Long>> gapsBySender = new LinkedHashMap<>();
        Map<String, Long> lastCopy = new HashMap<>();
        for (OpenVpnCaptures.TsharkRow r : OpenVpnCaptures.tshark(capture + ".tshark.tsv.gz")) {
            if (r.mpid() < 0 || r.opcode() == 5) {
                continue;
            }
            List<Long> gaps = gapsBySender.computeIfAbsent(r.sessionId(), k -> new ArrayList<>());
            Long previous = lastCopy.put(r.sessionId() + "/" + r.mpid(), r.timeUs());
            if (previous != null) {
                gaps.add(r.timeUs() - previous);
            }
        }
        OpenVpnCaptureAnalysis.Summary s = analyse(capture + ".pcap.gz");
        assertThat(s.sessions).hasSize(capture.startsWith("push-") ? 20 : 12);
        assertThat(s.truncated + s.malformed + s.undecided).isZero();
        SoftAssertions soft = new SoftAssertions();
        long total = 0;
        for (OpenVpnSession session : s.sessions) {
            soft.assertThat(session.c2s().retransmitGapsUs())
                    .as(session.clientSessionId() + " c2s")
                    .isEqualTo(gapsBySender.get(session.clientSessionId()));
            soft.assertThat(session.s2c().retransmitGapsUs())
                    .as(session.serverSessionId() + " s2c")
                    .isEqualTo(gapsBySender.get(session.serverSessionId()));
            soft.assertThat(session.c2s().retransmits() + session.s2c().retransmits())
                    .isEqualTo(gapsBySender.get(session.clientSessionId()).size()
                            + gapsBySender.get(session.serverSessionId()).size());
            total += session.c2s().retransmits() + session.s2c().retransmits();
        }
        soft.assertAll();
        if (capture.startsWith("push-100k")) {
            assertThat(total)
                    .as("1 % loss over ~200 packets a run must cause retransmissions")
                    .isPositive();
        }
    }

    /**
     * The per-direction counters of every session, counted here from tshark's decode of the same
     * capture: per sender session id, packets with a message packet-id (control, every copy) and
     * P_ACK_V1 packets; first copies of a packet-id that came after a higher one of the same sender
     * (late first copies); copies sent after a packet of the peer had named that id in its ACK array
     * (duplicates); per packet-id, its first copy to the first peer packet naming it (ACK latency).
     * Data packets carry no session id: tshark's data frames are counted per client port for c2s
     * (each run is a new port) and in total for s2c. Both capture points of the plain and tls-auth runs.
     */
    @ParameterizedTest
    @MethodSource("clearControlCaptures")
    void packetCountsLateCopiesDuplicatesAndAckLatencyEqualTsharksDecode(String capture) throws IOException {
        Map<String, long[]> bySender = new HashMap<>(); // control, ack-only, late first copies, duplicates
        Map<String, Long> highest = new HashMap<>();
        Map<String, Long> firstCopy = new HashMap<>(); // "sid/mpid" -> µs of its first copy
        Map<String, Long> acked = new HashMap<>(); // "sid/mpid" -> µs of the first peer packet naming it
        Map<String, List<Long>> latencies = new HashMap<>();
        Map<Integer, Long> clientData = new HashMap<>();
        long serverData = 0;
        for (OpenVpnCaptures.TsharkRow r : OpenVpnCaptures.tshark(capture + ".tshark.tsv.gz")) {
            if (r.opcode() == OpenVpnOpcode.DATA_V1 || r.opcode() == OpenVpnOpcode.DATA_V2) {
                if (r.srcPort() == 1194) {
                    serverData++;
                } else {
                    clientData.merge(r.srcPort(), 1L, Long::sum);
                }
                continue;
            }
            long[] c = bySender.computeIfAbsent(r.sessionId(), k -> new long[4]);
            for (long id : r.ackIds()) {
                String key = r.remoteSessionId() + "/" + id;
                if (firstCopy.containsKey(key) && !acked.containsKey(key)) {
                    acked.put(key, r.timeUs());
                    latencies
                            .computeIfAbsent(r.remoteSessionId(), k -> new ArrayList<>())
                            .add(r.timeUs() - firstCopy.get(key));
                }
            }
            if (r.opcode() == OpenVpnOpcode.ACK_V1) {
                c[1]++;
            } else if (r.mpid() >= 0) {
                c[0]++;
                String key = r.sessionId() + "/" + r.mpid();
                if (firstCopy.putIfAbsent(key, r.timeUs()) == null) {
                    if (r.mpid() < highest.getOrDefault(r.sessionId(), -1L)) {
                        c[2]++;
                    }
                    highest.merge(r.sessionId(), r.mpid(), Math::max);
                } else if (acked.containsKey(key)) {
                    c[3]++;
                }
            }
        }
        OpenVpnCaptureAnalysis.Summary s = analyse(capture + ".pcap.gz");
        assertThat(s.sessions).hasSize(capture.startsWith("push-") ? 20 : 12);
        SoftAssertions soft = new SoftAssertions();
        long lateOrDuplicate = 0;
        long flowtraceServerData = 0;
        for (OpenVpnSession session : s.sessions) {
            for (boolean c2s : new boolean[] {true, false}) {
                String sid = c2s ? session.clientSessionId() : session.serverSessionId();
                OpenVpnDirectionStats d = c2s ? session.c2s() : session.s2c();
                long[] want = bySender.get(sid);
                soft.assertThat(new long[] {d.controlPackets(), d.ackOnlyPackets(), d.lateFirstCopies(), d.duplicates()
                        })
                        .as(sid + " control, ack-only, late first copies, duplicates")
                        .containsExactly(want);
                List<Long> lat = latencies.getOrDefault(sid, List.of());
                soft.assertThat(d.ackLatencyUs().samples())
                        .as(sid + " ACK latency samples")
                        .isEqualTo(lat.size());
                if (!lat.isEmpty()) {
                    soft.assertThat(new long[] {
                                d.ackLatencyUs().min(), d.ackLatencyUs().max()
                            })
                            .as(sid + " ACK latency min, max")
                            .containsExactly(Collections.min(lat), Collections.max(lat));
                }
                lateOrDuplicate += want[2] + want[3];
            }
            int port =
                    Integer.parseInt(session.client().substring(session.client().lastIndexOf(':') + 1));
            soft.assertThat(session.c2s().dataPackets())
                    .as(session.client() + " c2s data")
                    .isEqualTo(clientData.get(port));
            flowtraceServerData += session.s2c().dataPackets();
        }
        soft.assertThat(flowtraceServerData).as("s2c data").isEqualTo(serverData);
        soft.assertAll();
        if (capture.startsWith("push-100k")) {
            assertThat(lateOrDuplicate)
                    .as("1 % loss over ~200 packets a run: copies after an ACK or a loss before the capture")
                    .isPositive();
        }
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "push-1k",
                "push-100k",
                "tls-auth-sha1.push-1k",
                "tls-auth-sha256.push-1k",
                "tls-crypt.push-1k",
                "tcp.push-1k"
            })
    void setupTimeOfEveryRunEqualsTheClientLogsCompletionMinusItsFirstPacket(String name) throws IOException {
        long[] logSetup = logSetupUs(name);
        OpenVpnCaptureAnalysis.Summary s = analyse(name + ".client.pcap.gz");
        assertThat(s.sessions).hasSize(logSetup.length);
        long[] diff = new long[logSetup.length];
        long[] control = new long[logSetup.length];
        for (int i = 0; i < logSetup.length; i++) {
            OpenVpnSession session = s.sessions.get(i);
            assertThat(session.setupEnd()).isEqualTo(OpenVpnSession.SetupEnd.DATA);
            diff[i] = session.setupNanos() / 1000 - logSetup[i];
            control[i] = Math.abs(session.controlExchangeNanos() / 1000 - logSetup[i]);
            assertThat(diff[i])
                    .as("run %d: flowtrace %d µs, client log %d µs", i + 1, session.setupNanos() / 1000, logSetup[i])
                    .isBetween(0L, name.startsWith("push-") ? HOOK_DELAY_MAX_US : LOADED_HOOK_DELAY_MAX_US);
        }
        Arrays.sort(diff);
        Arrays.sort(control);
        if (name.startsWith("push-")) {
            assertThat(diff[diff.length / 2])
                    .as("median of flowtrace - log (µs)")
                    .isLessThan(5_000);
        } else if (!name.startsWith("tls-crypt")) {
            // the hook's delay was longer under load: the end of the control exchange (the client's ACK of
            // the push reply, which it logs completion right after) is the wire's own end of setup
            assertThat(control[control.length / 2])
                    .as("median |control exchange - log| (µs)")
                    .isLessThan(1_000);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"push-1k", "push-100k"})
    void perServerTableMatchesTheOneComputedFromTheClientLogs(String name) throws IOException {
        long[] log = logSetupUs(name);
        // the seed-000 table by hand from the logs: runs, mean, sample sd, nearest-rank p50 / p90
        double mean = Arrays.stream(log).average().orElseThrow();
        double sd = Math.sqrt(
                Arrays.stream(log).mapToDouble(v -> (v - mean) * (v - mean)).sum() / (log.length - 1));
        long[] sorted = log.clone();
        Arrays.sort(sorted);
        long p50 = sorted[(int) Math.ceil(0.5 * sorted.length) - 1];
        long p90 = sorted[(int) Math.ceil(0.9 * sorted.length) - 1];
        OpenVpnServerTable table = new OpenVpnServerTable();
        analyse(name + ".client.pcap.gz").sessions.forEach(table::add);
        assertThat(table.rows()).hasSize(1);
        OpenVpnServerTable.Row row = table.rows().get(0);
        assertThat(row.server()).isEqualTo("10.77.2.2:1194");
        assertThat(row.sessions()).isEqualTo(log.length);
        assertThat(row.completed()).isEqualTo(log.length);
        // each run differs from its log by the hook delay only (see above): the mean by at most that
        assertThat(row.meanUs()).isCloseTo(mean, within((double) HOOK_DELAY_MAX_US / 4));
        assertThat(row.sdUs()).isCloseTo(sd, within((double) HOOK_DELAY_MAX_US / 4));
        assertThat(row.p50Us()).isCloseTo(p50, within((double) HOOK_DELAY_MAX_US));
        assertThat(row.p90Us()).isCloseTo(p90, within((double) HOOK_DELAY_MAX_US));
    }

    /**
     * Per run, from the client's own log and tshark: "Initialization Sequence Completed" time minus
     * the time of the first P_CONTROL_HARD_RESET_CLIENT_V2 (opcode 7) of the run's client session,
     * in µs. Runs are sequential, so the n-th first reset belongs to the n-th log.
     */
    private static long[] logSetupUs(String name) throws IOException {
        List<Long> firstResets = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        for (OpenVpnCaptures.TsharkRow r : OpenVpnCaptures.tshark(name + ".client.tshark.tsv.gz")) {
            if (r.opcode() == 7 && !seen.contains(r.sessionId())) {
                seen.add(r.sessionId());
                firstResets.add(r.timeUs());
            }
        }
        long[] setup = new long[firstResets.size()];
        for (int i = 0; i < setup.length; i++) {
            String log = String.format("%s.run%02d.client.log.gz", name, i + 1);
            long completed = OpenVpnCaptures.gzLines(log).stream()
                    .filter(l -> l.contains("Initialization Sequence Completed"))
                    .findFirst()
                    .map(OpenVpnCaptures::logMicros)
                    .orElseThrow();
            setup[i] = completed - firstResets.get(i);
        }
        return setup;
    }
}
