package io.flowtrace.core.openvpn;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The recorded tls-auth, tls-crypt and proto tcp setups (testdata/openvpn/README.md, 12 runs each):
 * every run is one session with both session ids, read with the wrapping it was recorded with
 * (found from the packets), and over TCP the retransmissions are TCP's, as tshark's TCP analysis
 * counts them, never the control channel's (the clients' logs send every message packet-id once).
 */
class OpenVpnModesTest {
    private static OpenVpnCaptureAnalysis.Summary analyse(String name) throws IOException {
        try (InputStream in = OpenVpnCaptures.pcap(name)) {
            return new OpenVpnCaptureAnalysis(OpenVpnWire.defaults(), i -> "test").run(in);
        }
    }

    @ParameterizedTest
    @CsvSource({
        "tls-auth-sha1.push-1k.client, udp, tls-auth, 20",
        "tls-auth-sha256.push-1k.server, udp, tls-auth, 32",
        "tls-crypt.push-1k.client, udp, tls-crypt, 0",
        "tls-crypt.push-1k.server, udp, tls-crypt, 0",
        "tcp.push-1k.client, tcp, plain, 0",
        "tcp.push-1k.server, tcp, plain, 0"
    })
    void everyRunIsOneLinkedSessionReadWithItsWrapping(String capture, String transport, String wrapping, int hmac)
            throws IOException {
        OpenVpnCaptureAnalysis.Summary s = analyse(capture + ".pcap.gz");
        assertThat(s.sessions).hasSize(12);
        assertThat(s.truncated + s.malformed + s.undecided + s.tcpDesynchronised)
                .isZero();
        SoftAssertions soft = new SoftAssertions();
        for (OpenVpnSession x : s.sessions) {
            soft.assertThat(x.serverSessionId()).as(x.clientSessionId()).isNotNull();
            soft.assertThat(x.transport()).isEqualTo(transport);
            soft.assertThat(x.wrapping()).isEqualTo(wrapping);
            soft.assertThat(x.tlsAuthHmacBytes()).isEqualTo(hmac);
            soft.assertThat(x.wrappingDetected()).isTrue();
            soft.assertThat(x.setupEnd()).isEqualTo(OpenVpnSession.SetupEnd.DATA);
        }
        soft.assertAll();
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp.push-1k.client", "tcp.push-1k.server"})
    void overTcpTheRetransmissionsAreTcpsAndNoControlPacketIsResent(String capture) throws IOException {
        // by hand from tshark: tcp.analysis.retransmission per sender address
        Map<String, Long> tcpRetransmits = new HashMap<>();
        for (OpenVpnCaptures.TsharkRow r : OpenVpnCaptures.tshark(capture + ".tshark.tsv.gz")) {
            if (r.tcpRetransmission()) {
                tcpRetransmits.merge(r.src(), 1L, Long::sum);
            }
        }
        OpenVpnCaptureAnalysis.Summary s = analyse(capture + ".pcap.gz");
        long c2s = 0;
        long s2c = 0;
        for (OpenVpnSession x : s.sessions) {
            assertThat(x.c2s().retransmits() + x.s2c().retransmits()).isZero();
            c2s += x.c2s().tcpRetransmits();
            s2c += x.s2c().tcpRetransmits();
        }
        assertThat(c2s).isEqualTo(tcpRetransmits.getOrDefault("10.77.1.2", 0L));
        assertThat(s2c).isEqualTo(tcpRetransmits.getOrDefault("10.77.2.2", 0L));
        if (capture.endsWith("client")) {
            // at the server a resent segment whose original was dropped on the way is no repeat
            assertThat(c2s + s2c).as("1 % loss over 12 setups").isPositive();
        }
    }

    /**
     * The client's control retransmissions per session against its log (verb 8 logs a line
     * "reliable_send ID n" for every copy it sends, the first included): per run, the copies beyond
     * the first of each ID. Over tls-crypt the message packet-ids are encrypted; the one the clear
     * header gives away is the hard reset's (always ID 0: repeated with the same session id, it is a
     * retransmission), which is the only kind these logs show. Runs are sequential: the n-th
     * session of the client capture is the n-th log.
     */
    @ParameterizedTest
    @ValueSource(strings = {"tls-crypt.push-1k", "tls-auth-sha1.push-1k", "tls-auth-sha256.push-1k", "tcp.push-1k"})
    void theClientsRetransmissionsOfEverySessionEqualItsLog(String name) throws IOException {
        OpenVpnCaptureAnalysis.Summary s = analyse(name + ".client.pcap.gz");
        assertThat(s.sessions).hasSize(12);
        long total = 0;
        for (int run = 1; run <= 12; run++) {
            Map<String, Long> copies = new HashMap<>();
            for (String line : OpenVpnCaptures.gzLines(
                    String.format(java.util.Locale.ROOT, "%s.run%02d.client.log.gz", name, run))) {
                String[] f = line.split(" ");
                if (f.length > 5 && f[3].equals("reliable_send") && f[4].equals("ID")) {
                    copies.merge(f[5], 1L, Long::sum);
                }
            }
            assertThat(copies).as("run %d logs its sends", run).isNotEmpty();
            long logged = copies.values().stream().mapToLong(n -> n - 1).sum();
            assertThat(s.sessions.get(run - 1).c2s().retransmits())
                    .as("run %d", run)
                    .isEqualTo(logged);
            total += logged;
        }
        if (!name.startsWith("tcp")) {
            assertThat(total)
                    .as("1 %% loss: at least one logged resend over 12 runs")
                    .isPositive();
        }
    }
}
