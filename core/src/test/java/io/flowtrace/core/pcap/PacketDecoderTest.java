package io.flowtrace.core.pcap;

import static io.flowtrace.core.testing.Frames.bytes;
import static io.flowtrace.core.testing.Frames.concat;
import static io.flowtrace.core.testing.Frames.ethernet;
import static io.flowtrace.core.testing.Frames.ipv4;
import static io.flowtrace.core.testing.Frames.ipv6;
import static io.flowtrace.core.testing.Frames.tcp;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class PacketDecoderTest {
    private static final byte[] A = bytes(10, 0, 0, 1);
    private static final byte[] B = bytes(10, 0, 0, 2);
    private static final byte[] A6 = bytes(0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1);
    private static final byte[] B6 = bytes(0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2);

    /** MSS 1460, SACK-permitted, timestamps 0x01020304/0, NOP, window scale 7 (a Linux SYN's layout). */
    private static final byte[] SYN_OPTIONS = bytes(2, 4, 0x05, 0xb4, 4, 2, 8, 10, 1, 2, 3, 4, 0, 0, 0, 0, 1, 3, 3, 7);

    private final PacketDecoder decoder = new PacketDecoder();
    private final DecodedPacket p = new DecodedPacket();

    private DecodeStatus decode(byte[] frame, int linkType) {
        return decoder.decode(frame, 0, frame.length, frame.length, linkType, 42L, 0, p);
    }

    @Test
    void decodesEveryFieldOfAnEthernetIpv4SynWithOptions() {
        byte[] seg = tcp(40000, 5201, 0xfffffff0L, 0, 0x002 | 0x100, 64240, SYN_OPTIONS, 0);
        byte[] frame = ethernet(0x0800, ipv4(A, B, 0x1234, 63, 6, 0x4000, new byte[0], seg));
        assertThat(decode(frame, LinkType.ETHERNET)).isEqualTo(DecodeStatus.TCP);
        assertThat(p.ipVersion).isEqualTo(4);
        assertThat(Arrays.copyOf(p.srcAddr, 4)).isEqualTo(A);
        assertThat(Arrays.copyOf(p.dstAddr, 4)).isEqualTo(B);
        assertThat(p.ipId).isEqualTo(0x1234);
        assertThat(p.ttl).isEqualTo(63);
        assertThat(p.ipTotalLength).isEqualTo(20 + 40);
        assertThat(p.srcPort).isEqualTo(40000);
        assertThat(p.dstPort).isEqualTo(5201);
        assertThat(p.seq).isEqualTo(0xfffffff0L);
        assertThat(p.flags).isEqualTo(0x102);
        assertThat(p.hasFlag(DecodedPacket.SYN)).isTrue();
        assertThat(p.window).isEqualTo(64240);
        assertThat(p.tcpHeaderLength).isEqualTo(40);
        assertThat(p.payloadLength).isZero();
        assertThat(p.mss).isEqualTo(1460);
        assertThat(p.sackPermitted).isTrue();
        assertThat(p.tsVal).isEqualTo(0x01020304L);
        assertThat(p.tsEcr).isZero();
        assertThat(p.windowScale).isEqualTo(7);
        assertThat(p.badOptions).isFalse();
        assertThat(p.truncation).isZero();
        assertThat(p.timestampNanos).isEqualTo(42L);
    }

    @Test
    void decodesSackBlocksAsRawSequenceNumbers() {
        byte[] sack = bytes(1, 1, 5, 18, 0, 0, 0, 100, 0, 0, 1, 0, 0xff, 0xff, 0xff, 0, 0xff, 0xff, 0xff, 0xf0);
        byte[] seg = tcp(5201, 40000, 1, 99, 0x010, 500, sack, 0);
        assertThat(decode(ethernet(0x0800, ipv4(B, A, 7, seg)), LinkType.ETHERNET))
                .isEqualTo(DecodeStatus.TCP);
        assertThat(p.sackCount).isEqualTo(2);
        assertThat(p.sackLeft[0]).isEqualTo(100);
        assertThat(p.sackRight[0]).isEqualTo(256);
        assertThat(p.sackLeft[1]).isEqualTo(0xffffff00L);
        assertThat(p.sackRight[1]).isEqualTo(0xfffffff0L);
    }

    @Test
    void computesPayloadFromIpLengthsNotCapturedBytes() {
        byte[] seg = tcp(1, 2, 1000, 0, 0x018, 100, new byte[0], 1448);
        byte[] frame = ethernet(0x0800, ipv4(A, B, 1, seg));
        int snap = 14 + 20 + 20 + 10;
        assertThat(decoder.decode(frame, 0, snap, frame.length, LinkType.ETHERNET, 0, 0, p))
                .isEqualTo(DecodeStatus.TCP);
        assertThat(p.payloadLength).isEqualTo(1448);
        assertThat(p.truncation & DecodedPacket.TRUNCATED_PAYLOAD).isNotZero();
        assertThat(p.truncation & DecodedPacket.TRUNCATED_OPTIONS).isZero();
    }

    @Test
    void flagsOptionsCutBySnapLengthWithoutCallingThemMalformed() {
        byte[] seg = tcp(1, 2, 1000, 0, 0x002, 100, SYN_OPTIONS, 0);
        byte[] frame = ethernet(0x0800, ipv4(A, B, 1, seg));
        assertThat(decoder.decode(frame, 0, 64, frame.length, LinkType.ETHERNET, 0, 0, p))
                .isEqualTo(DecodeStatus.TCP);
        assertThat(p.truncation & DecodedPacket.TRUNCATED_OPTIONS).isNotZero();
        assertThat(p.badOptions).isFalse();
        assertThat(p.mss).isEqualTo(1460); // the first 10 option bytes survived
        assertThat(p.tsVal).isEqualTo(-1); // the timestamp option was cut
    }

    @Test
    void reportsTruncatedWhenTheTcpFixedHeaderIsCut() {
        byte[] frame = ethernet(0x0800, ipv4(A, B, 1, tcp(1, 2, 3, 4, 0x10, 5, new byte[0], 0)));
        assertThat(decoder.decode(frame, 0, 14 + 20 + 10, frame.length, LinkType.ETHERNET, 0, 0, p))
                .isEqualTo(DecodeStatus.TRUNCATED);
        assertThat(p.reason).contains("TCP header");
    }

    @Test
    void stopsAtAnOptionWithAnImpossibleLength() {
        byte[] seg = tcp(1, 2, 3, 4, 0x10, 5, bytes(2, 4, 0x05, 0xb4, 8, 1, 0, 0), 0);
        assertThat(decode(ethernet(0x0800, ipv4(A, B, 1, seg)), LinkType.ETHERNET))
                .isEqualTo(DecodeStatus.TCP);
        assertThat(p.mss).isEqualTo(1460);
        assertThat(p.badOptions).isTrue();
    }

    @Test
    void keepsAtMostFourSackBlocksAndFlagsMore() {
        byte[] opt = new byte[2 + 8 * 5];
        opt[0] = 5;
        opt[1] = (byte) opt.length;
        byte[] seg = tcp(1, 2, 3, 4, 0x10, 5, opt, 0);
        assertThat(decode(ethernet(0x0800, ipv4(A, B, 1, seg)), LinkType.ETHERNET))
                .isEqualTo(DecodeStatus.MALFORMED);
        // 42 option bytes cannot fit: data offset would exceed 60 bytes, so the header itself is impossible
    }

    @Test
    void readsVlanAndQinqTags() {
        byte[] ip = ipv4(A, B, 1, tcp(1, 2, 3, 4, 0x10, 5, new byte[0], 0));
        assertThat(decode(ethernet(0x0800, ip, 100), LinkType.ETHERNET)).isEqualTo(DecodeStatus.TCP);
        assertThat(p.vlanOuter).isEqualTo(100);
        assertThat(p.vlanInner).isEqualTo(-1);
        assertThat(decode(ethernet(0x0800, ip, 200, 300), LinkType.ETHERNET)).isEqualTo(DecodeStatus.TCP);
        assertThat(p.vlanOuter).isEqualTo(200);
        assertThat(p.vlanInner).isEqualTo(300);
    }

    @Test
    void decodesLinuxCookedCaptureV1AndV2() {
        byte[] ip = ipv4(A, B, 9, tcp(11, 22, 3, 4, 0x10, 5, new byte[0], 0));
        byte[] sll = concat(bytes(0, 4, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0, 0x08, 0x00), ip);
        assertThat(decode(sll, LinkType.LINUX_SLL)).isEqualTo(DecodeStatus.TCP);
        assertThat(p.srcPort).isEqualTo(11);
        byte[] sll2 = concat(bytes(0x08, 0x00, 0, 0, 0, 0, 0, 3, 0, 1, 4, 6, 2, 0, 0, 0, 0, 1, 0, 0), ip);
        assertThat(decode(sll2, LinkType.LINUX_SLL2)).isEqualTo(DecodeStatus.TCP);
        assertThat(p.dstPort).isEqualTo(22);
    }

    @Test
    void decodesRawIpAndBsdLoopbackInBothByteOrders() {
        byte[] ip6 = ipv6(A6, B6, 6, 64, tcp(80, 9999, 5, 6, 0x12, 7, new byte[0], 0));
        assertThat(decode(ip6, LinkType.RAW)).isEqualTo(DecodeStatus.TCP);
        assertThat(p.ipVersion).isEqualTo(6);
        byte[] ip4 = ipv4(A, B, 1, tcp(1, 2, 3, 4, 0x10, 5, new byte[0], 0));
        assertThat(decode(concat(bytes(2, 0, 0, 0), ip4), LinkType.NULL)).isEqualTo(DecodeStatus.TCP);
        assertThat(decode(concat(bytes(0, 0, 0, 2), ip4), LinkType.NULL)).isEqualTo(DecodeStatus.TCP);
        assertThat(decode(concat(bytes(30, 0, 0, 0), ip6), LinkType.NULL)).isEqualTo(DecodeStatus.TCP);
        assertThat(decode(concat(bytes(0, 0, 0, 24), ip6), LinkType.LOOP)).isEqualTo(DecodeStatus.TCP);
    }

    @Test
    void skipsIpv4OptionsAndNonFirstFragments() {
        byte[] seg = tcp(1, 2, 3, 4, 0x10, 5, new byte[0], 100);
        byte[] withOptions = ipv4(A, B, 1, 64, 6, 0, bytes(7, 7, 4, 0, 0, 0, 0, 0), seg); // record route
        assertThat(decode(withOptions, LinkType.RAW)).isEqualTo(DecodeStatus.TCP);
        assertThat(p.payloadLength).isEqualTo(100);
        assertThat(p.ipTotalLength).isEqualTo(28 + 120);
        byte[] first = ipv4(A, B, 1, 64, 6, 0x2000, new byte[0], seg);
        assertThat(decode(first, LinkType.RAW)).isEqualTo(DecodeStatus.TCP);
        assertThat(p.fragmented).isTrue();
        byte[] later = ipv4(A, B, 1, 64, 6, 0x0010, new byte[0], new byte[64]);
        assertThat(decode(later, LinkType.RAW)).isEqualTo(DecodeStatus.NON_FIRST_FRAGMENT);
    }

    @Test
    void walksIpv6ExtensionHeaders() {
        byte[] seg = tcp(443, 50000, 7, 8, 0x18, 9, new byte[0], 10);
        // hop-by-hop (8 B, next: destination options) → destination options (8 B, next: fragment)
        // → fragment (offset 0, M=1, next: TCP) → TCP
        byte[] chain = concat(
                bytes(60, 0, 1, 4, 0, 0, 0, 0), bytes(44, 0, 1, 4, 0, 0, 0, 0), bytes(6, 0, 0, 1, 0, 0, 0, 7), seg);
        assertThat(decode(ipv6(A6, B6, 0, 64, chain), LinkType.RAW)).isEqualTo(DecodeStatus.TCP);
        assertThat(p.srcPort).isEqualTo(443);
        assertThat(p.payloadLength).isEqualTo(10);
        assertThat(p.fragmented).isTrue();
        byte[] laterFragment = concat(bytes(6, 0, 0x05, 0x00, 0, 0, 0, 7), new byte[16]);
        assertThat(decode(ipv6(A6, B6, 44, 64, laterFragment), LinkType.RAW))
                .isEqualTo(DecodeStatus.NON_FIRST_FRAGMENT);
    }

    @Test
    void classifiesNonTcpAndUnknownLinks() {
        assertThat(decode(ethernet(0x0806, new byte[28]), LinkType.ETHERNET)).isEqualTo(DecodeStatus.NOT_IP);
        assertThat(decode(ipv4(A, B, 1, 64, 17, 0, new byte[0], new byte[8]), LinkType.RAW))
                .isEqualTo(DecodeStatus.NOT_TCP);
        assertThat(decode(new byte[40], 147)).isEqualTo(DecodeStatus.UNSUPPORTED_LINK);
        assertThat(decode(new byte[5], LinkType.ETHERNET)).isEqualTo(DecodeStatus.TRUNCATED);
    }

    @Test
    void usesWireLengthWhenTsoLeftIpTotalLengthZero() {
        byte[] seg = tcp(1, 2, 3, 4, 0x10, 5, new byte[0], 0);
        byte[] ip = ipv4(A, B, 1, seg);
        ip[2] = 0;
        ip[3] = 0;
        byte[] frame = ethernet(0x0800, ip);
        assertThat(decoder.decode(frame, 0, frame.length, 14 + 40 + 64000, LinkType.ETHERNET, 0, 0, p))
                .isEqualTo(DecodeStatus.TCP);
        assertThat(p.payloadLength).isEqualTo(64000);
    }
}
