package io.flowtrace.core.openvpn;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * tls-crypt encrypts the ACK arrays and message packet-ids, so the copies of a P_CONTROL_V1 are
 * inferred from the clear header (lengths and timing: docs/metrics.md, "OpenVPN modes"). Measured
 * on real setups under 5 % random loss each way (testdata/openvpn/README.md, the loss5 cases),
 * against what the two OpenVPN processes logged at verb 8: a line "reliable_send ID n" for every
 * copy sent, the first included.
 *
 * <p>The truth is built from the logs and tshark's decode only: each sender's log lines are its
 * control packets in the order it sent them, so the n-th line of a session is its n-th
 * P_CONTROL_V1 (the client's hard resets included; the server answers resets statelessly, without
 * a log line) in the capture at the sender, where every packet it sent is present. Each packet is
 * then known by its sender's session id and replay packet-id (clear under tls-crypt, new on every
 * packet), at both capture points. A packet is a logged copy when its ID was logged before.
 */
class OpenVpnTlsCryptInferenceTest {
    private static final String CLIENT = "10.77.1.2";
    private static final String SERVER = "10.77.2.2";
    private static final Pattern SEND = Pattern.compile(" reliable_send ID (\\d+) ");
    private static final Pattern SERVER_SEND =
            Pattern.compile(" (?:client/)?10\\.77\\.1\\.2:(\\d+) ACK reliable_send ID (\\d+) ");

    record Packet(String sessionId, long replayId) {}

    /** Every P_CONTROL_V1 packet that repeats an ID its sender had sent before, from the logs. */
    private static Set<Packet> loggedCopies(String name, int runs) throws IOException {
        Set<Packet> copies = new HashSet<>();
        // client: the n-th session of the client capture is run n (runs are sequential)
        List<OpenVpnCaptures.TsharkRow> client = OpenVpnCaptures.tshark(name + ".client.tshark.tsv.gz");
        List<String> clientSessions = firstSeen(client, CLIENT, OpenVpnOpcode.HARD_RESET_CLIENT_V2);
        assertThat(clientSessions).hasSize(runs);
        for (int run = 1; run <= runs; run++) {
            List<Long> ids = new ArrayList<>();
            for (String line :
                    OpenVpnCaptures.gzLines(String.format(Locale.ROOT, "%s.run%02d.client.log.gz", name, run))) {
                Matcher m = SEND.matcher(line);
                if (m.find()) {
                    ids.add(Long.parseLong(m.group(1)));
                }
            }
            String sid = clientSessions.get(run - 1);
            List<OpenVpnCaptures.TsharkRow> sent = sent(client, CLIENT, sid, true);
            label(sent, ids, copies, "run " + run);
        }
        // server: one log for all runs, its lines prefixed with the client's address; the n-th port
        // to appear there is the n-th server session of the server capture
        Map<Integer, List<Long>> byPort = new LinkedHashMap<>();
        for (String line : OpenVpnCaptures.gzLines(name + ".server.log.gz")) {
            Matcher m = SERVER_SEND.matcher(line);
            if (m.find()) {
                byPort.computeIfAbsent(Integer.parseInt(m.group(1)), p -> new ArrayList<>())
                        .add(Long.parseLong(m.group(2)));
            }
        }
        List<OpenVpnCaptures.TsharkRow> server = OpenVpnCaptures.tshark(name + ".server.tshark.tsv.gz");
        // (a reset answered twice across the server's cookie time slot has a second session id that
        // sends nothing else: the sessions that sent control packets)
        List<String> serverSessions = firstSeen(server, SERVER, OpenVpnOpcode.CONTROL_V1);
        assertThat(byPort).hasSize(runs);
        assertThat(serverSessions).hasSize(runs);
        int n = 0;
        for (Map.Entry<Integer, List<Long>> e : byPort.entrySet()) {
            List<OpenVpnCaptures.TsharkRow> sent = sent(server, SERVER, serverSessions.get(n++), false);
            label(sent, e.getValue(), copies, "server to port " + e.getKey());
        }
        return copies;
    }

    private static List<String> firstSeen(List<OpenVpnCaptures.TsharkRow> rows, String src, int opcode) {
        List<String> ids = new ArrayList<>();
        for (OpenVpnCaptures.TsharkRow r : rows) {
            if (r.src().equals(src) && r.opcode() == opcode && !ids.contains(r.sessionId())) {
                ids.add(r.sessionId());
            }
        }
        return ids;
    }

    private static List<OpenVpnCaptures.TsharkRow> sent(
            List<OpenVpnCaptures.TsharkRow> rows, String src, String sid, boolean withResets) {
        List<OpenVpnCaptures.TsharkRow> out = new ArrayList<>();
        for (OpenVpnCaptures.TsharkRow r : rows) {
            if (r.src().equals(src)
                    && sid.equals(r.sessionId())
                    && (r.opcode() == OpenVpnOpcode.CONTROL_V1
                            || withResets && r.opcode() == OpenVpnOpcode.HARD_RESET_CLIENT_V2)) {
                out.add(r);
            }
        }
        return out;
    }

    private static void label(List<OpenVpnCaptures.TsharkRow> sent, List<Long> ids, Set<Packet> copies, String what) {
        assertThat(sent)
                .as("%s: one packet at the sender per logged send", what)
                .hasSameSizeAs(ids);
        Set<Long> seen = new HashSet<>();
        for (int i = 0; i < ids.size(); i++) {
            OpenVpnCaptures.TsharkRow r = sent.get(i);
            if (!seen.add(ids.get(i)) && r.opcode() == OpenVpnOpcode.CONTROL_V1) {
                copies.add(new Packet(r.sessionId(), r.replayId()));
            }
        }
    }

    /**
     * Found, missed and false inferred copies of one sender's P_CONTROL_V1 at one capture point.
     * Missed counts the logged copies this capture holds (a copy lost before it cannot be seen).
     */
    private static int[] score(String name, String side, String sender, Set<Packet> logged) throws IOException {
        Map<Long, OpenVpnCaptures.TsharkRow> byTime = new HashMap<>();
        Set<Packet> present = new HashSet<>();
        for (OpenVpnCaptures.TsharkRow r : OpenVpnCaptures.tshark(name + "." + side + ".tshark.tsv.gz")) {
            if (r.src().equals(sender)) {
                byTime.put(r.timeUs(), r);
                if (r.opcode() == OpenVpnOpcode.CONTROL_V1
                        && logged.contains(new Packet(r.sessionId(), r.replayId()))) {
                    present.add(new Packet(r.sessionId(), r.replayId()));
                }
            }
        }
        OpenVpnCaptureAnalysis.Summary s;
        try (InputStream in = OpenVpnCaptures.pcap(name + "." + side + ".pcap.gz")) {
            s = new OpenVpnCaptureAnalysis(OpenVpnWire.defaults(), i -> side).run(in);
        }
        Set<Packet> inferred = new HashSet<>();
        for (OpenVpnSession x : s.sessions) {
            assertThat(x.wrapping()).isEqualTo("tls-crypt");
            OpenVpnDirectionStats d = sender.equals(CLIENT) ? x.c2s() : x.s2c();
            for (long t : d.retransmitTimesNanos()) {
                OpenVpnCaptures.TsharkRow r = byTime.get(t / 1000);
                assertThat(r)
                        .as("a retransmission at %d is a frame of the sender", t)
                        .isNotNull();
                if (r.opcode() == OpenVpnOpcode.CONTROL_V1) { // hard resets are exact (OpenVpnModesTest)
                    inferred.add(new Packet(r.sessionId(), r.replayId()));
                }
            }
        }
        int found = 0;
        for (Packet p : inferred) {
            if (present.contains(p)) {
                found++;
            }
        }
        return new int[] {found, present.size() - found, inferred.size() - found};
    }

    /**
     * The figures of docs/metrics.md's tls-crypt row. No inferred copy is false anywhere; the
     * sender's own capture finds the timer-driven copies, which are all of the 1 KB push's (the
     * server's copies of the 100 KB push are mostly ACK-driven, ~10 ms apart mid-transfer, and not
     * inferable: the length and the timing of a full-size packet say nothing there).
     */
    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
        // case, capture, sender, found, missed, false
        "tls-crypt.loss5.push-1k, client, client, 12, 2, 0",
        "tls-crypt.loss5.push-1k, server, server, 16, 3, 0",
        "tls-crypt.loss5.push-1k, client, server, 3, 15, 0",
        "tls-crypt.loss5.push-1k, server, client, 4, 10, 0",
        "tls-crypt.loss5.push-100k, client, client, 2, 0, 0",
        "tls-crypt.loss5.push-100k, server, server, 1, 79, 0",
        "tls-crypt.loss5.push-100k, client, server, 0, 75, 0",
        "tls-crypt.loss5.push-100k, server, client, 0, 2, 0"
    })
    void inferredCopiesAgainstTheLogs(String name, String side, String sender, int found, int missed, int falseOnes)
            throws IOException {
        Set<Packet> logged = loggedCopies(name, name.endsWith("100k") ? 8 : 40);
        int[] got = score(name, side, sender.equals("client") ? CLIENT : SERVER, logged);
        assertThat(got).as("found, missed, false").containsExactly(found, missed, falseOnes);
    }
}
