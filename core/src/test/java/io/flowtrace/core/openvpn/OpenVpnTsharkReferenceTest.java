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
import java.util.List;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every OpenVPN header field of every frame of the real captures, compared with tshark 4.0's
 * openvpn dissector (-d udp.port==1194,openvpn), recorded next to each capture.
 */
class OpenVpnTsharkReferenceTest {
    @Test
    void everyFrameDecodesAsTsharkDecodedIt() throws IOException, CaptureFormatException {
        PacketDecoder decoder = PacketDecoder.withUdp();
        OpenVpnHeaderDecoder ovpn = new OpenVpnHeaderDecoder(OpenVpnWire.defaults());
        SoftAssertions soft = new SoftAssertions();
        long frames = 0;
        for (String c : OpenVpnCaptures.CASES) {
            for (String side : new String[] {"client", "server"}) {
                List<OpenVpnCaptures.TsharkRow> rows = OpenVpnCaptures.tshark(c + "." + side + ".tshark.tsv.gz");
                try (InputStream in = OpenVpnCaptures.pcap(c + "." + side + ".pcap.gz");
                        CaptureReader reader = CaptureReader.open(in, e -> soft.fail(e.getMessage()))) {
                    CaptureRecord rec = new CaptureRecord();
                    DecodedPacket p = new DecodedPacket();
                    OpenVpnHeader h = new OpenVpnHeader();
                    int i = 0;
                    while (reader.next(rec)) {
                        OpenVpnCaptures.TsharkRow t = rows.get(i++);
                        String at = c + "." + side + " frame " + t.frame();
                        soft.assertThat(decoder.decode(rec, p)).as(at).isEqualTo(DecodeStatus.UDP);
                        soft.assertThat(rec.timestampNanos / 1000)
                                .as(at + " time")
                                .isEqualTo(t.timeUs());
                        soft.assertThat(p.srcPort).as(at + " port").isEqualTo(t.srcPort());
                        OpenVpnHeader.Kind kind =
                                ovpn.decode(rec.data, p.payloadOffset, p.payloadCaptured, p.payloadLength, h);
                        soft.assertThat(kind)
                                .as(at + " kind")
                                .isIn(OpenVpnHeader.Kind.CONTROL, OpenVpnHeader.Kind.ACK, OpenVpnHeader.Kind.DATA);
                        soft.assertThat(h.opcode).as(at + " opcode").isEqualTo(t.opcode());
                        if (kind == OpenVpnHeader.Kind.DATA) {
                            continue;
                        }
                        soft.assertThat(OpenVpnHeader.sessionIdText(h.sessionId))
                                .as(at + " session id")
                                .isEqualTo(t.sessionId());
                        soft.assertThat(h.ackCount).as(at + " ACK count").isEqualTo(t.ackCount());
                        for (int k = 0; k < t.ackIds().length; k++) {
                            soft.assertThat(h.ackIds[k]).as(at + " ACK " + k).isEqualTo(t.ackIds()[k]);
                        }
                        if (h.ackCount > 0) {
                            soft.assertThat(OpenVpnHeader.sessionIdText(h.remoteSessionId))
                                    .as(at + " remote id")
                                    .isEqualTo(t.remoteSessionId());
                        }
                        soft.assertThat(h.messagePacketId).as(at + " mpid").isEqualTo(t.mpid());
                        frames++;
                    }
                    soft.assertThat(i).as(c + "." + side + " frames").isEqualTo(rows.size());
                }
            }
        }
        assertThat(frames).isGreaterThan(8000);
        soft.assertAll();
    }

    /**
     * tls-auth captures: no option given, each flow's HMAC size is found from its packets
     * (OpenVpnFlowLayouts) and every field then equals tshark's decode, which was told the HMAC size
     * (scripts/openvpn-capture.sh: SHA1 20 bytes, SHA256 32).
     */
    @ParameterizedTest
    @CsvSource({"tls-auth-sha1.push-1k, 20", "tls-auth-sha256.push-1k, 32"})
    void tlsAuthIsDetectedAndDecodesAsTsharkDecodedIt(String c, int hmac) throws IOException, CaptureFormatException {
        PacketDecoder decoder = PacketDecoder.withUdp();
        OpenVpnHeaderDecoder ovpn = new OpenVpnHeaderDecoder(OpenVpnWire.defaults());
        SoftAssertions soft = new SoftAssertions();
        long controls = 0;
        for (String side : new String[] {"client", "server"}) {
            OpenVpnFlowLayouts layouts = new OpenVpnFlowLayouts(OpenVpnWire.defaults());
            List<OpenVpnCaptures.TsharkRow> rows = OpenVpnCaptures.tshark(c + "." + side + ".tshark.tsv.gz");
            try (InputStream in = OpenVpnCaptures.pcap(c + "." + side + ".pcap.gz");
                    CaptureReader reader = CaptureReader.open(in, e -> soft.fail(e.getMessage()))) {
                CaptureRecord rec = new CaptureRecord();
                DecodedPacket p = new DecodedPacket();
                OpenVpnHeader h = new OpenVpnHeader();
                int i = 0;
                while (reader.next(rec)) {
                    OpenVpnCaptures.TsharkRow t = rows.get(i++);
                    String at = c + "." + side + " frame " + t.frame();
                    decoder.decode(rec, p);
                    OpenVpnWire layout = layouts.layout(
                            OpenVpnCaptureAnalysis.flowKey(p),
                            rec.data,
                            p.payloadOffset,
                            p.payloadCaptured,
                            p.payloadLength,
                            p.timestampNanos);
                    OpenVpnHeader.Kind kind =
                            ovpn.decode(layout, rec.data, p.payloadOffset, p.payloadCaptured, p.payloadLength, h);
                    soft.assertThat(h.opcode).as(at + " opcode").isEqualTo(t.opcode());
                    if (kind == OpenVpnHeader.Kind.DATA) {
                        continue;
                    }
                    soft.assertThat(layout.tlsAuthDigestBytes())
                            .as(at + " HMAC")
                            .isEqualTo(hmac);
                    soft.assertThat(layout.detect()).as(at + " detected").isTrue();
                    soft.assertThat(kind).as(at + " kind").isIn(OpenVpnHeader.Kind.CONTROL, OpenVpnHeader.Kind.ACK);
                    soft.assertThat(OpenVpnHeader.sessionIdText(h.sessionId))
                            .as(at + " session id")
                            .isEqualTo(t.sessionId());
                    soft.assertThat(h.ackCount).as(at + " ACK count").isEqualTo(t.ackCount());
                    for (int k = 0; k < t.ackIds().length; k++) {
                        soft.assertThat(h.ackIds[k]).as(at + " ACK " + k).isEqualTo(t.ackIds()[k]);
                    }
                    soft.assertThat(h.messagePacketId).as(at + " mpid").isEqualTo(t.mpid());
                    controls++;
                }
                soft.assertThat(i).as(c + "." + side + " frames").isEqualTo(rows.size());
            }
            soft.assertThat(layouts.undecided()).as(side + " undecided").isZero();
        }
        assertThat(controls).isGreaterThan(300);
        soft.assertAll();
    }
}
