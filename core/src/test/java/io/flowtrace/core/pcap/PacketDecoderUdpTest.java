package io.flowtrace.core.pcap;

import static io.flowtrace.core.testing.Frames.bytes;
import static io.flowtrace.core.testing.Frames.concat;
import static io.flowtrace.core.testing.Frames.ethernet;
import static io.flowtrace.core.testing.Frames.ipv4;
import static io.flowtrace.core.testing.Frames.ipv6;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** UDP headers (RFC 768) on literal bytes: ports, length, where the payload starts, and the bad cases. */
class PacketDecoderUdpTest {
    private static final byte[] A = bytes(10, 77, 1, 2);
    private static final byte[] B = bytes(10, 77, 2, 2);
    private static final byte[] A6 = bytes(0xfd, 0x77, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2);
    private static final byte[] B6 = bytes(0xfd, 0x77, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2);

    /** Source port 42115 (0xa483), destination 1194 (0x04aa), length 8 + 3, checksum 0, payload 38 01 02. */
    private static final byte[] UDP = bytes(0xa4, 0x83, 0x04, 0xaa, 0x00, 0x0b, 0x00, 0x00, 0x38, 0x01, 0x02);

    private final DecodedPacket p = new DecodedPacket();

    @Test
    void decodesUdpPortsLengthAndPayloadOffsetOverIpv4() {
        byte[] frame = ethernet(0x0800, ipv4(A, B, 1, 64, 17, 0x4000, new byte[0], UDP));
        assertThat(PacketDecoder.withUdp().decode(frame, 0, frame.length, frame.length, LinkType.ETHERNET, 0, 0, p))
                .isEqualTo(DecodeStatus.UDP);
        assertThat(p.srcPort).isEqualTo(42115);
        assertThat(p.dstPort).isEqualTo(1194);
        assertThat(p.payloadLength).isEqualTo(3);
        assertThat(p.payloadOffset).isEqualTo(14 + 20 + 8);
        assertThat(p.payloadCaptured).isEqualTo(3);
        assertThat(frame[p.payloadOffset] & 0xff).isEqualTo(0x38);
    }

    @Test
    void decodesUdpOverIpv6() {
        byte[] frame = ipv6(A6, B6, 17, 64, UDP);
        assertThat(PacketDecoder.withUdp().decode(frame, 0, frame.length, frame.length, LinkType.RAW, 0, 0, p))
                .isEqualTo(DecodeStatus.UDP);
        assertThat(p.dstPort).isEqualTo(1194);
        assertThat(p.payloadOffset).isEqualTo(40 + 8);
    }

    @Test
    void theDefaultDecoderStillReportsUdpAsNotTcp() {
        byte[] frame = ipv4(A, B, 1, 64, 17, 0x4000, new byte[0], UDP);
        assertThat(new PacketDecoder().decode(frame, 0, frame.length, frame.length, LinkType.RAW, 0, 0, p))
                .isEqualTo(DecodeStatus.NOT_TCP);
    }

    @Test
    void countsCutPayloadAsTruncationNotFailure() {
        byte[] frame = ipv4(A, B, 1, 64, 17, 0x4000, new byte[0], UDP);
        int snap = 20 + 8 + 1;
        assertThat(PacketDecoder.withUdp().decode(frame, 0, snap, frame.length, LinkType.RAW, 0, 0, p))
                .isEqualTo(DecodeStatus.UDP);
        assertThat(p.payloadLength).isEqualTo(3);
        assertThat(p.payloadCaptured).isEqualTo(1);
        assertThat(p.truncation & DecodedPacket.TRUNCATED_PAYLOAD).isNotZero();
    }

    @Test
    void rejectsShortHeaderAndImpossibleLengths() {
        PacketDecoder d = PacketDecoder.withUdp();
        byte[] cut = ipv4(A, B, 1, 64, 17, 0x4000, new byte[0], UDP);
        assertThat(d.decode(cut, 0, 20 + 7, cut.length, LinkType.RAW, 0, 0, p)).isEqualTo(DecodeStatus.TRUNCATED);
        byte[] belowEight = ipv4(A, B, 1, 64, 17, 0x4000, new byte[0], bytes(0, 1, 0, 2, 0, 7, 0, 0));
        assertThat(d.decode(belowEight, 0, belowEight.length, belowEight.length, LinkType.RAW, 0, 0, p))
                .isEqualTo(DecodeStatus.MALFORMED);
        byte[] beyond = ipv4(A, B, 1, 64, 17, 0x4000, new byte[0], concat(bytes(0, 1, 0, 2, 0, 40, 0, 0), bytes(1)));
        assertThat(d.decode(beyond, 0, beyond.length, beyond.length, LinkType.RAW, 0, 0, p))
                .isEqualTo(DecodeStatus.MALFORMED);
        assertThat(p.reason).isEqualTo("UDP length beyond the IP payload");
    }
}
