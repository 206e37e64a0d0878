package io.flowtrace.avro.mapping;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.avro.OpenVpnBatch;
import io.flowtrace.avro.Vantage;
import io.flowtrace.core.openvpn.OpenVpnHeader;
import io.flowtrace.core.openvpn.OpenVpnHeaderDecoder;
import io.flowtrace.core.openvpn.OpenVpnWire;
import io.flowtrace.core.pcap.CaptureReader;
import io.flowtrace.core.pcap.CaptureRecord;
import io.flowtrace.core.pcap.DecodeStatus;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.core.pcap.PacketDecoder;
import io.flowtrace.core.testing.TestData;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class OpenVpnBatchesTest {
    private static final Vantage VANTAGE = new Vantage("host-a", "if0");
    private static final long NOW = 4_000_000_000_000_000_000L;

    /** What the job must see of one packet: the header fields decoded from the frame, and the endpoints. */
    private static String view(DecodedPacket p, OpenVpnHeader h) {
        return p.timestampNanos + " " + Arrays.toString(Arrays.copyOf(p.srcAddr, p.addrLength)) + ":" + p.srcPort + ">"
                + Arrays.toString(Arrays.copyOf(p.dstAddr, p.addrLength)) + ":" + p.dstPort + " " + h.kind + " op"
                + h.opcode + " k" + h.keyId + " sid" + h.sessionId + " peer" + h.peerId + " acks"
                + Arrays.toString(Arrays.copyOf(h.ackIds, h.ackCount)) + " rsid" + h.remoteSessionId + " mpid"
                + h.messagePacketId + " payload" + h.payloadLength + " reason" + h.reason;
    }

    @ParameterizedTest
    @ValueSource(strings = {"openvpn/push-1k.client.pcap.gz", "openvpn/push-100k.server.pcap.gz"})
    void everyPacketExpandsToTheHeaderTheAgentDecodedFromTheFrame(String capture) throws Exception {
        OpenVpnWire wire = OpenVpnWire.defaults();
        OpenVpnHeaderDecoder decoder = new OpenVpnHeaderDecoder(wire);
        List<String> direct = new ArrayList<>();
        List<String> expanded = new ArrayList<>();
        OpenVpnBatches.Builder builder = new OpenVpnBatches.Builder(VANTAGE, wire);
        List<OpenVpnBatch> batches = new ArrayList<>();
        try (InputStream in = new GZIPInputStream(Files.newInputStream(TestData.file(capture)));
                CaptureReader reader = CaptureReader.open(in, e -> {})) {
            CaptureRecord rec = new CaptureRecord();
            DecodedPacket p = new DecodedPacket();
            OpenVpnHeader h = new OpenVpnHeader();
            PacketDecoder udp = PacketDecoder.withUdp();
            while (reader.next(rec)) {
                assertThat(udp.decode(rec, p)).isEqualTo(DecodeStatus.UDP);
                decoder.decode(rec.data, p.payloadOffset, p.payloadCaptured, p.payloadLength, h);
                direct.add(view(p, h));
                if (!builder.accepts(p) || builder.size() == 37) { // odd batch size: batches of every phase
                    batches.add(roundTrip(builder.build()));
                }
                builder.add(p, h, rec.data);
            }
        }
        batches.add(roundTrip(builder.build()));
        DecodedPacket p = new DecodedPacket();
        OpenVpnHeader h = new OpenVpnHeader();
        byte[] header = new byte[OpenVpnBatches.MAX_HEADER_BYTES];
        long headerBytes = 0;
        long payloadBytes = 0;
        for (OpenVpnBatch b : batches) {
            assertThat(OpenVpnBatches.invalidReason(b, NOW)).isNull();
            assertThat(OpenVpnBatches.flowKey(b)).startsWith("host-a/if0");
            OpenVpnHeaderDecoder job = new OpenVpnHeaderDecoder(OpenVpnBatches.wire(b));
            for (int i = 0; i < b.getPackets().size(); i++) {
                assertThat(OpenVpnBatches.invalidPacketReason(b, i, NOW)).isNull();
                int n = OpenVpnBatches.fromAvro(b, i, p, header);
                job.decode(header, 0, n, p.payloadLength, h);
                expanded.add(view(p, h));
                headerBytes += n;
                payloadBytes += p.payloadLength;
            }
        }
        assertThat(expanded).isEqualTo(direct);
        // headers only: the TLS records and tunnel payload stay on the capture host
        assertThat(headerBytes).isLessThan(payloadBytes / 5);
    }

    private static OpenVpnBatch roundTrip(OpenVpnBatch b) throws Exception {
        return OpenVpnBatch.getDecoder().decode(b.toByteBuffer());
    }
}
