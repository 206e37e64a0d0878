package io.flowtrace.avro.mapping;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.avro.OpenVpnBatch;
import io.flowtrace.avro.SingleObjectCodec;
import io.flowtrace.core.openvpn.OpenVpnWire;
import io.flowtrace.core.pcap.DecodeStatus;
import io.flowtrace.core.pcap.DecodedPacket;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;

/**
 * Batches of older agents: a record written by the released v1 and v2 schemas
 * (src/test/resources/released/OpenVpnBatch), encoded here by Avro's generic writer from the
 * released file, not by the current classes, reaches the job's codec with the fields it lacks at
 * their defaults and its own fields as written.
 */
class OpenVpnBatchVersionsTest {
    private static final long BASE = 1_764_000_000_123_456_789L;
    /** P_CONTROL_HARD_RESET_CLIENT_V2 (7 << 3 = 0x38), session id 01..08, no ACK, message packet-id 0. */
    private static final byte[] RESET = {0x38, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0, 0};

    @Test
    void aV1BatchDecodesAsAPlainUdpBatchNotDetected() throws IOException {
        Schema v1 = released(1);
        byte[] value = singleObject(v1, batch(v1, false));
        assertThat(SingleObjectCodec.fingerprintOf(value)).isNotEqualTo(OpenVpnBatches.FINGERPRINT);
        assertThat(OpenVpnBatches.isOpenVpnBatch(SingleObjectCodec.fingerprintOf(value)))
                .isTrue();

        OpenVpnBatch b = OpenVpnBatches.codec().decode(value);
        assertWritten(b);
        assertThat(b.getWrappingDetected()).isFalse(); // v1 has no such field: its default
        assertThat(b.getTransport()).isEqualTo("udp");
        assertThat(b.getPackets().get(0).getTcpRetransmit()).isFalse();
        assertThat(OpenVpnBatches.wire(b)).isEqualTo(new OpenVpnWire(new int[] {1194}, 20, false, false));
        assertThat(OpenVpnBatches.invalidReason(b, BASE + 1_000_000_000L)).isNull();
        assertThat(OpenVpnBatches.invalidPacketReason(b, 0, BASE + 1_000_000_000L))
                .isNull();
        DecodedPacket p = new DecodedPacket();
        byte[] header = new byte[OpenVpnBatches.MAX_HEADER_BYTES];
        assertThat(OpenVpnBatches.fromAvro(b, 0, p, header)).isEqualTo(RESET.length);
        assertThat(p.status).isEqualTo(DecodeStatus.UDP);
        assertThat(p.timestampNanos).isEqualTo(BASE + 250);
        assertThat(p.srcPort).isEqualTo(50_000); // from_high: the client at the higher port sent it
        assertThat(p.dstPort).isEqualTo(1194);
    }

    @Test
    void aV2BatchKeepsItsDetectedWrappingAndReadsAsUdp() throws IOException {
        Schema v2 = released(2);
        byte[] value = singleObject(v2, batch(v2, true));
        assertThat(OpenVpnBatches.isOpenVpnBatch(SingleObjectCodec.fingerprintOf(value)))
                .isTrue();
        OpenVpnBatch b = OpenVpnBatches.codec().decode(value);
        assertWritten(b);
        assertThat(b.getWrappingDetected()).isTrue();
        assertThat(b.getTransport()).isEqualTo("udp");
    }

    @Test
    void theJarsCopiesAreTheReleasedFiles() {
        // the codec's older writers come from the schemas jar (schemas/pom.xml copies them there)
        assertThat(OpenVpnBatches.OLDER_WRITERS.stream().map(SchemaNormalization::parsingFingerprint64))
                .containsExactly(
                        SchemaNormalization.parsingFingerprint64(released(1)),
                        SchemaNormalization.parsingFingerprint64(released(2)));
    }

    @Test
    void anUnknownFingerprintIsNoOpenVpnBatch() {
        assertThat(OpenVpnBatches.isOpenVpnBatch(SingleObjectCodec.NO_FINGERPRINT))
                .isFalse();
        assertThat(OpenVpnBatches.isOpenVpnBatch(0x0123456789abcdefL)).isFalse();
    }

    private static void assertWritten(OpenVpnBatch b) {
        assertThat(b.getVantage().getAgentId()).isEqualTo("old-agent");
        assertThat(b.getLowPort()).isEqualTo(1194);
        assertThat(b.getHighPort()).isEqualTo(50_000);
        assertThat(b.getBaseTimeNs()).isEqualTo(BASE);
        assertThat(b.getTlsAuthDigestBytes()).isEqualTo(20);
        assertThat(b.getPackets()).hasSize(1);
        assertThat(b.getPackets().get(0).getHeader()).isEqualTo(ByteBuffer.wrap(RESET));
        assertThat(b.getPackets().get(0).getPayloadLength()).isEqualTo(54);
    }

    /** One batch of one client hard reset, as an agent of that version wrote it (generic, from the released schema). */
    private static GenericRecord batch(Schema schema, boolean detected) {
        Schema vantageSchema = schema.getField("vantage").schema();
        GenericRecord vantage = new GenericData.Record(vantageSchema);
        vantage.put("agent_id", "old-agent");
        vantage.put("interface_name", "eth0");
        Schema packetSchema = schema.getField("packets").schema().getElementType();
        GenericRecord packet = new GenericData.Record(packetSchema);
        packet.put("time_offset_ns", 250L);
        packet.put("from_high", true);
        packet.put("payload_length", 54);
        packet.put("captured_payload_length", 54);
        packet.put("header", ByteBuffer.wrap(RESET));
        packet.put("wire_length", 96);
        GenericRecord b = new GenericData.Record(schema);
        b.put("vantage", vantage);
        b.put("ip_version", 4);
        b.put("low_addr", ByteBuffer.wrap(new byte[] {10, 0, 0, 1}));
        b.put("low_port", 1194);
        b.put("high_addr", ByteBuffer.wrap(new byte[] {10, 0, 0, 2}));
        b.put("high_port", 50_000);
        b.put("base_time_ns", BASE);
        b.put("openvpn_ports", List.of(1194));
        b.put("tls_auth_digest_bytes", 20);
        b.put("tls_crypt", false);
        if (schema.getField("wrapping_detected") != null) {
            b.put("wrapping_detected", detected);
        }
        b.put("packets", List.of(packet));
        return b;
    }

    /** Avro's single-object encoding written by hand: C3 01, the writer's fingerprint little-endian, the datum. */
    private static byte[] singleObject(Schema schema, GenericRecord datum) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(0xC3);
        out.write(0x01);
        long fp = SchemaNormalization.parsingFingerprint64(schema);
        for (int i = 0; i < 8; i++) {
            out.write((int) (fp >>> (8 * i)) & 0xff);
        }
        BinaryEncoder e = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(schema).write(datum, e);
        e.flush();
        return out.toByteArray();
    }

    private static Schema released(int version) {
        try {
            Path dir = Path.of(OpenVpnBatchVersionsTest.class
                    .getResource("/released/OpenVpnBatch")
                    .toURI());
            return new Schema.Parser()
                    .parse(dir.resolve("v" + version + ".avsc").toFile());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
