package io.flowtrace.core.pcap;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.core.testing.AnyBridgeCapture;
import io.flowtrace.core.testing.AnyBridgeCapture.Seen;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * A real capture on Linux's {@code any} device (testdata/tcp/any-bridge.pcap.gz): every packet of a
 * bridged pod is in it once per interface it crossed. The reader gives each copy the interface index
 * of its SLL2 header, so per interface id the packets and payload bytes of each direction are exactly
 * tshark's count for that interface ({@code sll.ifindex}), and no interface id holds both copies.
 */
class AnyDeviceCaptureTest {

    @Test
    void eachCopyOfAPacketIsAtTheInterfaceTsharkNames() throws Exception {
        List<Seen> truth = AnyBridgeCapture.truth();
        // the capture is what the test needs: two connections, each whole at exactly two interfaces
        Map<String, Set<Integer>> interfacesOf = new TreeMap<>();
        for (Seen s : truth) {
            interfacesOf.computeIfAbsent(s.connection(), c -> new TreeSet<>()).add(s.ifindex());
            assertThat(s.payloadBytes())
                    .as("%s at %d", s.connection(), s.ifindex())
                    .isEqualTo(s.fromClient() ? AnyBridgeCapture.REQUEST_BYTES : AnyBridgeCapture.RESPONSE_BYTES);
        }
        assertThat(interfacesOf).hasSize(2).allSatisfy((c, at) -> assertThat(at).hasSize(2));

        Map<String, String> expected = new TreeMap<>();
        for (Seen s : truth) {
            expected.put(
                    s.ifindex() + " " + s.src() + ":" + s.srcPort() + " > " + s.dst() + ":" + s.dstPort(),
                    s.packets() + " packets, " + s.payloadBytes() + " bytes");
        }
        Map<String, long[]> counted = new TreeMap<>();
        try (InputStream in = Files.newInputStream(AnyBridgeCapture.file());
                CaptureReader reader = CaptureReader.open(in)) {
            CaptureRecord rec = new CaptureRecord();
            DecodedPacket p = new DecodedPacket();
            PacketDecoder decoder = new PacketDecoder();
            while (reader.next(rec)) {
                assertThat(rec.linkType).isEqualTo(LinkType.LINUX_SLL2);
                if (decoder.decode(rec, p) != DecodeStatus.TCP) {
                    continue;
                }
                long[] n = counted.computeIfAbsent(
                        rec.interfaceId + " " + address(p.srcAddr, p.addrLength) + ":" + p.srcPort + " > "
                                + address(p.dstAddr, p.addrLength) + ":" + p.dstPort,
                        k -> new long[2]);
                n[0]++;
                n[1] += p.payloadLength;
            }
        }
        Map<String, String> got = new TreeMap<>();
        counted.forEach((k, n) -> got.put(k, n[0] + " packets, " + n[1] + " bytes"));
        assertThat(got).isEqualTo(expected);
    }

    private static String address(byte[] a, int length) throws Exception {
        return InetAddress.getByAddress(Arrays.copyOf(a, length)).getHostAddress();
    }
}
