package io.flowtrace.core.openvpn;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.core.pcap.CaptureFormatException;
import io.flowtrace.core.pcap.CaptureReader;
import io.flowtrace.core.pcap.CaptureRecord;
import io.flowtrace.core.pcap.DecodeStatus;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.core.pcap.PacketDecoder;
import java.io.IOException;
import java.io.InputStream;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The wrapping found from the packets alone: on every recorded capture (the mode each was made
 * with is in its name, scripts/openvpn-capture.sh) and on hand-built packets of the layouts the
 * captures lack (ssl_pkt.c's tls-auth with a SHA512 HMAC: 64 bytes).
 */
class OpenVpnLayoutDetectorTest {
    /** 2026-12-02 04:41:21 UTC, a time of the captures. */
    private static final long NOW_S = 1_796_186_481L;

    @ParameterizedTest
    @CsvSource({
        "push-1k.client, 0",
        "push-100k.server, 0",
        "tls-auth-sha1.push-1k.client, 20",
        "tls-auth-sha1.push-1k.server, 20",
        "tls-auth-sha256.push-1k.client, 32",
        "tls-auth-sha256.push-1k.server, 32",
        "tls-crypt.push-1k.client, -1",
        "tls-crypt.push-1k.server, -1"
    })
    void everyControlPacketOfARecordedCaptureFitsItsOwnLayoutOnly(String capture, int layout)
            throws IOException, CaptureFormatException {
        TreeMap<Integer, Integer> verdicts = new TreeMap<>();
        PacketDecoder decoder = PacketDecoder.withUdp();
        try (InputStream in = OpenVpnCaptures.pcap(capture + ".pcap.gz");
                CaptureReader reader = CaptureReader.open(in, e -> {})) {
            CaptureRecord rec = new CaptureRecord();
            DecodedPacket p = new DecodedPacket();
            while (reader.next(rec)) {
                if (decoder.decode(rec, p) != DecodeStatus.UDP
                        || OpenVpnOpcode.isData((rec.data[p.payloadOffset] & 0xff) >>> 3)) {
                    continue;
                }
                int v = OpenVpnLayoutDetector.detect(
                        rec.data, p.payloadOffset, p.payloadCaptured, p.payloadLength, p.timestampNanos);
                verdicts.merge(v, 1, Integer::sum);
            }
        }
        assertThat(verdicts.keySet()).containsExactly(layout);
        assertThat(verdicts.get(layout)).isGreaterThan(100);
    }

    @Test
    void aSha512TlsAuthResetIsFoundByItsReplayIdAndTime() {
        byte[] reset = tlsAuthReset(64, NOW_S - 5);
        assertThat(OpenVpnLayoutDetector.detect(reset, 0, reset.length, reset.length, NOW_S * 1_000_000_000L))
                .isEqualTo(64);
    }

    @Test
    void aReplayTimeYearsFromTheCaptureDecidesNothing() {
        byte[] reset = tlsAuthReset(64, NOW_S - 3L * 365 * 86_400);
        assertThat(OpenVpnLayoutDetector.detect(reset, 0, reset.length, reset.length, NOW_S * 1_000_000_000L))
                .isEqualTo(OpenVpnLayoutDetector.UNDECIDED);
    }

    @Test
    void dataAndShortPacketsDecideNothing() {
        byte[] data = {(byte) (OpenVpnOpcode.DATA_V2 << 3), 0, 0, 1, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9};
        assertThat(OpenVpnLayoutDetector.detect(data, 0, data.length, data.length, NOW_S * 1_000_000_000L))
                .isEqualTo(OpenVpnLayoutDetector.UNDECIDED);
        byte[] cut = {(byte) (OpenVpnOpcode.HARD_RESET_CLIENT_V2 << 3), 1, 2, 3};
        assertThat(OpenVpnLayoutDetector.detect(cut, 0, cut.length, 42, NOW_S * 1_000_000_000L))
                .isEqualTo(OpenVpnLayoutDetector.UNDECIDED);
    }

    @Test
    void tlsCryptV2OpcodesAreTlsCryptWhateverFollows() {
        byte[] v3 = new byte[60];
        v3[0] = (byte) (OpenVpnOpcode.HARD_RESET_CLIENT_V3 << 3);
        assertThat(OpenVpnLayoutDetector.detect(v3, 0, v3.length, v3.length, 0))
                .isEqualTo(OpenVpnLayoutDetector.TLS_CRYPT);
    }

    /**
     * P_CONTROL_HARD_RESET_CLIENT_V2 as write_control_auth lays it out with tls-auth: opcode, session
     * id, HMAC of {@code hmac} random bytes, replay packet-id 1 and {@code time}, ACK count 0,
     * message packet-id 0 (1 + 8 + hmac + 8 + 1 + 4 bytes).
     */
    private static byte[] tlsAuthReset(int hmac, long time) {
        byte[] b = new byte[1 + 8 + hmac + 8 + 1 + 4];
        Random r = new Random(35);
        b[0] = (byte) (OpenVpnOpcode.HARD_RESET_CLIENT_V2 << 3);
        for (int i = 1; i < 9 + hmac; i++) {
            b[i] = (byte) r.nextInt();
        }
        int p = 9 + hmac;
        b[p + 3] = 1;
        b[p + 4] = (byte) (time >>> 24);
        b[p + 5] = (byte) (time >>> 16);
        b[p + 6] = (byte) (time >>> 8);
        b[p + 7] = (byte) time;
        return b;
    }
}
