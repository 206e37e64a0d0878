package io.flowtrace.core.openvpn;

import static io.flowtrace.core.testing.Frames.bytes;
import static io.flowtrace.core.testing.Frames.concat;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The OpenVPN header view on literal bytes laid out as src/openvpn/ssl_pkt.c write_control_auth
 * and reliable.c reliable_ack_write build them (OpenVPN 2.6). Every field of every packet of the
 * real captures is checked against tshark in {@link OpenVpnTsharkReferenceTest}.
 */
class OpenVpnHeaderDecoderTest {
    private static final byte[] CLIENT_SID = bytes(0x42, 0x19, 0x4c, 0x3d, 0x1e, 0x56, 0x6b, 0x5a);
    private static final byte[] SERVER_SID = bytes(0xfa, 0x86, 0x8e, 0x4e, 0x9a, 0x7a, 0x6e, 0x22);

    private final OpenVpnHeader h = new OpenVpnHeader();
    private final OpenVpnHeaderDecoder plain = new OpenVpnHeaderDecoder(OpenVpnWire.defaults());

    private OpenVpnHeader.Kind decode(OpenVpnHeaderDecoder d, byte[] b) {
        return d.decode(b, 0, b.length, b.length, h);
    }

    @Test
    void readsTheClientHardResetV2() {
        // 0x38 = opcode 7 << 3 | key id 0; session id; ACK count 0; message packet-id 0; 2 payload bytes
        byte[] b = concat(bytes(0x38), CLIENT_SID, bytes(0), bytes(0, 0, 0, 0), bytes(0xaa, 0xbb));
        assertThat(decode(plain, b)).isEqualTo(OpenVpnHeader.Kind.CONTROL);
        assertThat(h.opcode).isEqualTo(OpenVpnOpcode.HARD_RESET_CLIENT_V2);
        assertThat(h.keyId).isZero();
        assertThat(h.sessionId).isEqualTo(0x42194c3d1e566b5aL);
        assertThat(h.ackCount).isZero();
        assertThat(h.messagePacketId).isZero();
        assertThat(h.payloadLength).isEqualTo(2);
    }

    @Test
    void readsTheServerResetWithItsAckOfTheClientReset() {
        byte[] b = concat(bytes(0x40), SERVER_SID, bytes(1), bytes(0, 0, 0, 0), CLIENT_SID, bytes(0, 0, 0, 0));
        assertThat(decode(plain, b)).isEqualTo(OpenVpnHeader.Kind.CONTROL);
        assertThat(h.opcode).isEqualTo(OpenVpnOpcode.HARD_RESET_SERVER_V2);
        assertThat(h.ackCount).isEqualTo(1);
        assertThat(h.ackIds[0]).isZero();
        assertThat(h.remoteSessionId).isEqualTo(0x42194c3d1e566b5aL);
        assertThat(h.messagePacketId).isZero();
        assertThat(h.payloadLength).isZero();
    }

    @Test
    void readsAnAckOnlyPacketWithFourIdsAndNoMessagePacketId() {
        // 0x28 = P_ACK_V1, key 0; ACK ids 6,5,4,3 (OpenVPN 2.6 repeats recent ids); remote session id
        byte[] b = concat(
                bytes(0x28), CLIENT_SID, bytes(4), bytes(0, 0, 0, 6, 0, 0, 0, 5, 0, 0, 0, 4, 0, 0, 0, 3), SERVER_SID);
        assertThat(decode(plain, b)).isEqualTo(OpenVpnHeader.Kind.ACK);
        assertThat(h.ackCount).isEqualTo(4);
        assertThat(h.ackIds).startsWith(6L, 5L, 4L, 3L);
        assertThat(h.remoteSessionId).isEqualTo(0xfa868e4e9a7a6e22L);
        assertThat(h.messagePacketId).isEqualTo(-1);
        assertThat(h.payloadLength).isZero();
    }

    @Test
    void skipsTheTlsAuthHmacAndReplayIdByTheConfiguredDigestSize() {
        // P_CONTROL_V1 key id 1 (0x21): session id, 20-byte SHA1 HMAC, replay packet-id 7, net time,
        // ACK count 0, message packet-id 0x01020304, 5 payload bytes
        OpenVpnHeaderDecoder tlsAuth = new OpenVpnHeaderDecoder(new OpenVpnWire(new int[] {1194}, 20, false));
        byte[] b = concat(
                bytes(0x21),
                CLIENT_SID,
                new byte[20],
                bytes(0, 0, 0, 7),
                bytes(0x5f, 0, 0, 0),
                bytes(0),
                bytes(1, 2, 3, 4),
                new byte[5]);
        assertThat(decode(tlsAuth, b)).isEqualTo(OpenVpnHeader.Kind.CONTROL);
        assertThat(h.opcode).isEqualTo(OpenVpnOpcode.CONTROL_V1);
        assertThat(h.keyId).isEqualTo(1);
        assertThat(h.messagePacketId).isEqualTo(0x01020304L);
        assertThat(h.payloadLength).isEqualTo(5);
        // read without the tls-auth setting the HMAC's first byte (0) would be taken as an empty ACK array
        assertThat(decode(plain, b)).isEqualTo(OpenVpnHeader.Kind.CONTROL);
        assertThat(h.messagePacketId).isNotEqualTo(0x01020304L);
    }

    @Test
    void countsTlsCryptControlPacketsAsOpaque() {
        OpenVpnHeaderDecoder tlsCrypt = new OpenVpnHeaderDecoder(new OpenVpnWire(new int[] {1194}, 0, true));
        byte[] b = concat(bytes(0x20), CLIENT_SID, bytes(0, 0, 0, 1, 0x5f, 0, 0, 0), new byte[32], new byte[40]);
        assertThat(decode(tlsCrypt, b)).isEqualTo(OpenVpnHeader.Kind.OPAQUE);
        assertThat(h.sessionId).isEqualTo(0x42194c3d1e566b5aL);
        assertThat(h.messagePacketId).isEqualTo(-1);
        assertThat(h.payloadLength).isEqualTo(40);
    }

    @Test
    void readsDataV2PeerIdAndDataV1() {
        // 0x48 = P_DATA_V2 key 0; peer id 0x000001; 4 bytes of ciphertext
        assertThat(decode(plain, bytes(0x48, 0, 0, 1, 9, 9, 9, 9))).isEqualTo(OpenVpnHeader.Kind.DATA);
        assertThat(h.peerId).isEqualTo(1);
        assertThat(h.payloadLength).isEqualTo(4);
        assertThat(decode(plain, bytes(0x31, 9, 9))).isEqualTo(OpenVpnHeader.Kind.DATA);
        assertThat(h.opcode).isEqualTo(OpenVpnOpcode.DATA_V1);
        assertThat(h.keyId).isEqualTo(1);
        assertThat(h.payloadLength).isEqualTo(2);
    }

    @Test
    void countsCutAndImpossibleHeadersWithAReason() {
        byte[] reset = concat(bytes(0x38), CLIENT_SID, bytes(0), bytes(0, 0, 0, 0));
        for (int cut = 1; cut < reset.length; cut++) {
            assertThat(plain.decode(reset, 0, cut, reset.length, h))
                    .as("cut at %d", cut)
                    .isEqualTo(OpenVpnHeader.Kind.TRUNCATED);
            assertThat(h.reason).isNotBlank();
        }
        assertThat(decode(plain, new byte[0])).isEqualTo(OpenVpnHeader.Kind.TRUNCATED);
        assertThat(decode(plain, concat(bytes(0x00), CLIENT_SID))).isEqualTo(OpenVpnHeader.Kind.MALFORMED);
        assertThat(h.reason).isEqualTo("unknown OpenVPN opcode");
        assertThat(decode(plain, concat(bytes(0x28), CLIENT_SID, bytes(9), new byte[44])))
                .isEqualTo(OpenVpnHeader.Kind.MALFORMED);
        assertThat(h.reason).isEqualTo("OpenVPN ACK count above 8");
        assertThat(plain.decode(bytes(0x48, 0), 0, 2, 2, h)).isEqualTo(OpenVpnHeader.Kind.TRUNCATED);
    }

    @Test
    void randomBytesNeverThrowAndAlwaysGetAKind() {
        SplittableRandom random = new SplittableRandom(22);
        OpenVpnHeaderDecoder[] decoders = {
            plain,
            new OpenVpnHeaderDecoder(new OpenVpnWire(new int[] {1194}, 20, false)),
            new OpenVpnHeaderDecoder(new OpenVpnWire(new int[] {1194}, 0, true))
        };
        byte[] b = new byte[200];
        for (int i = 0; i < 200_000; i++) {
            random.nextBytes(b);
            int length = random.nextInt(b.length + 1);
            int captured = random.nextInt(length + 1);
            OpenVpnHeader.Kind kind = decoders[i % 3].decode(b, 0, captured, length, h);
            assertThat(kind).isNotNull();
            if (kind == OpenVpnHeader.Kind.TRUNCATED || kind == OpenVpnHeader.Kind.MALFORMED) {
                assertThat(h.reason).isNotNull();
            } else {
                assertThat(h.payloadLength).isBetween(0, length);
                assertThat(h.ackCount).isBetween(0, OpenVpnHeader.MAX_ACKS);
            }
        }
    }
}
