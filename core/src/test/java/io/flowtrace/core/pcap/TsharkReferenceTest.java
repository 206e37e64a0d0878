package io.flowtrace.core.pcap;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.core.testing.TestData;
import io.flowtrace.core.testing.Tsv;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every decoded field of every frame of the real captures in testdata/decoding, compared with
 * what tshark decoded from the same file (the {@code .tshark.tsv} next to each capture, written by
 * scripts/capture-decoding.sh). tshark is the independent reference; nothing here comes from our
 * own output.
 */
class TsharkReferenceTest {

    static Stream<String> captures() throws IOException {
        try (Stream<Path> files = Files.list(TestData.file("decoding"))) {
            return files
                    .map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".tshark.tsv"))
                    .map(n -> n.substring(0, n.length() - ".tshark.tsv".length()))
                    .sorted()
                    .toList()
                    .stream();
        }
    }

    @ParameterizedTest
    @MethodSource("captures")
    void decodesEveryFieldAsTsharkDoes(String capture) throws Exception {
        List<Map<String, String>> reference = Tsv.read(TestData.file("decoding/" + capture + ".tshark.tsv"));
        assertThat(reference).isNotEmpty();
        List<CaptureFormatException> errors = new ArrayList<>();
        PacketDecoder decoder = new PacketDecoder();
        DecodedPacket p = new DecodedPacket();
        SoftAssertions soft = new SoftAssertions();
        int compared = 0;
        int tcpCompared = 0;
        try (InputStream in = Files.newInputStream(TestData.file("decoding/" + capture));
                CaptureReader reader = CaptureReader.open(in, errors::add)) {
            CaptureRecord rec = new CaptureRecord();
            for (Map<String, String> row : reference) {
                assertThat(reader.next(rec))
                        .as("%s frame %s exists", capture, row.get("frame.number"))
                        .isTrue();
                String at = capture + " frame " + row.get("frame.number");
                soft.assertThat(rec.recordNumber).as(at).isEqualTo(Long.parseLong(row.get("frame.number")));
                soft.assertThat(rec.timestampNanos).as(at + " time").isEqualTo(epochNanos(row.get("frame.time_epoch")));
                soft.assertThat(rec.wireLength).as(at + " frame.len").isEqualTo(Integer.parseInt(row.get("frame.len")));
                soft.assertThat(rec.capturedLength)
                        .as(at + " cap_len")
                        .isEqualTo(Integer.parseInt(row.get("frame.cap_len")));
                if (!row.get("frame.interface_id").isEmpty()) {
                    soft.assertThat(rec.interfaceId)
                            .as(at + " interface")
                            .isEqualTo(Integer.parseInt(row.get("frame.interface_id")));
                }
                decoder.decode(rec, p);
                compareLinkAndIp(soft, at, row, p);
                if (!row.get("tcp.srcport").isEmpty() && !isNonFirstFragment(row)) {
                    compareTcp(soft, at, row, p);
                    tcpCompared++;
                }
                compared++;
            }
            assertThat(reader.next(rec)).as("no frames beyond tshark's").isFalse();
        }
        soft.assertAll();
        assertThat(compared).isEqualTo(reference.size());
        if (capture.contains("tcp")) {
            assertThat(tcpCompared).as("TCP frames compared").isPositive();
        }
        if (capture.contains("truncated")) {
            assertThat(errors)
                    .singleElement()
                    .satisfies(e -> assertThat(e.getMessage()).contains("truncated"));
        } else {
            assertThat(errors).isEmpty();
        }
    }

    private static boolean isNonFirstFragment(Map<String, String> row) {
        String off = row.get("ip.frag_offset");
        return !off.isEmpty() && Integer.parseInt(first(off)) > 0;
    }

    private static void compareLinkAndIp(SoftAssertions soft, String at, Map<String, String> row, DecodedPacket p)
            throws Exception {
        String outer = row.getOrDefault("ieee8021ad.id", "");
        String vlan = row.get("vlan.id");
        if (!outer.isEmpty()) {
            soft.assertThat(p.vlanOuter).as(at + " outer vlan").isEqualTo(Integer.parseInt(first(outer)));
            soft.assertThat(p.vlanInner).as(at + " inner vlan").isEqualTo(Integer.parseInt(first(vlan)));
        } else if (!vlan.isEmpty()) {
            soft.assertThat(p.vlanOuter).as(at + " vlan").isEqualTo(Integer.parseInt(first(vlan)));
        }
        String version = first(row.get("ip.version"));
        if (version.isEmpty()) {
            soft.assertThat(p.status).as(at + " not IP").isIn(DecodeStatus.NOT_IP, DecodeStatus.TRUNCATED);
            return;
        }
        if (isNonFirstFragment(row)) {
            soft.assertThat(p.status).as(at + " fragment").isEqualTo(DecodeStatus.NON_FIRST_FRAGMENT);
        }
        if (version.equals("4")) {
            soft.assertThat(p.ipVersion).as(at + " ip.version").isEqualTo(4);
            soft.assertThat(Arrays.copyOf(p.srcAddr, 4)).as(at + " ip.src").isEqualTo(addr(row.get("ip.src")));
            soft.assertThat(Arrays.copyOf(p.dstAddr, 4)).as(at + " ip.dst").isEqualTo(addr(row.get("ip.dst")));
            soft.assertThat(p.ipId).as(at + " ip.id").isEqualTo(Integer.decode(first(row.get("ip.id"))));
            soft.assertThat(p.ttl).as(at + " ip.ttl").isEqualTo(Integer.parseInt(first(row.get("ip.ttl"))));
            soft.assertThat(p.ipTotalLength).as(at + " ip.len").isEqualTo(Integer.parseInt(first(row.get("ip.len"))));
        } else {
            soft.assertThat(p.ipVersion).as(at + " ip.version").isEqualTo(6);
            soft.assertThat(p.srcAddr).as(at + " ipv6.src").isEqualTo(addr(row.get("ipv6.src")));
            soft.assertThat(p.dstAddr).as(at + " ipv6.dst").isEqualTo(addr(row.get("ipv6.dst")));
            soft.assertThat(p.ttl).as(at + " ipv6.hlim").isEqualTo(Integer.parseInt(first(row.get("ipv6.hlim"))));
            soft.assertThat(p.ipTotalLength)
                    .as(at + " 40 + ipv6.plen")
                    .isEqualTo(40 + Integer.parseInt(first(row.get("ipv6.plen"))));
        }
    }

    private static void compareTcp(SoftAssertions soft, String at, Map<String, String> row, DecodedPacket p) {
        soft.assertThat(p.status).as(at + " status").isEqualTo(DecodeStatus.TCP);
        if (p.status != DecodeStatus.TCP) {
            return;
        }
        soft.assertThat(p.srcPort).as(at + " tcp.srcport").isEqualTo(Integer.parseInt(row.get("tcp.srcport")));
        soft.assertThat(p.dstPort).as(at + " tcp.dstport").isEqualTo(Integer.parseInt(row.get("tcp.dstport")));
        soft.assertThat(p.seq).as(at + " tcp.seq_raw").isEqualTo(Long.parseLong(row.get("tcp.seq_raw")));
        soft.assertThat(p.ack).as(at + " tcp.ack_raw").isEqualTo(Long.parseLong(row.get("tcp.ack_raw")));
        soft.assertThat(p.flags).as(at + " tcp.flags").isEqualTo(Integer.decode(row.get("tcp.flags")) & 0x1ff);
        soft.assertThat(p.window)
                .as(at + " tcp.window_size_value")
                .isEqualTo(Integer.parseInt(row.get("tcp.window_size_value")));
        soft.assertThat(p.payloadLength).as(at + " tcp.len").isEqualTo(Integer.parseInt(row.get("tcp.len")));
        soft.assertThat(p.mss).as(at + " mss").isEqualTo(optionalInt(row.get("tcp.options.mss_val")));
        soft.assertThat(p.windowScale).as(at + " wscale").isEqualTo(optionalInt(row.get("tcp.options.wscale.shift")));
        soft.assertThat(p.sackPermitted)
                .as(at + " sack_perm")
                .isEqualTo(!row.get("tcp.options.sack_perm").isEmpty());
        List<Long> le = longs(row.get("tcp.options.sack_le"));
        List<Long> re = longs(row.get("tcp.options.sack_re"));
        soft.assertThat(p.sackCount).as(at + " sack blocks").isEqualTo(le.size());
        for (int i = 0; i < Math.min(le.size(), p.sackCount); i++) {
            soft.assertThat(p.sackLeft[i]).as(at + " sack_le " + i).isEqualTo(le.get(i));
            soft.assertThat(p.sackRight[i]).as(at + " sack_re " + i).isEqualTo(re.get(i));
        }
        String tsval = row.get("tcp.options.timestamp.tsval");
        soft.assertThat(p.tsVal).as(at + " tsval").isEqualTo(tsval.isEmpty() ? -1 : Long.parseLong(tsval));
        String tsecr = row.get("tcp.options.timestamp.tsecr");
        soft.assertThat(p.tsEcr).as(at + " tsecr").isEqualTo(tsecr.isEmpty() ? -1 : Long.parseLong(tsecr));
    }

    private static int optionalInt(String s) {
        return s.isEmpty() ? -1 : Integer.parseInt(first(s));
    }

    private static List<Long> longs(String s) {
        List<Long> out = new ArrayList<>();
        if (!s.isEmpty()) {
            for (String v : s.split(",")) {
                out.add(Long.parseLong(v));
            }
        }
        return out;
    }

    /** tshark aggregates repeated fields (tunnels, fragments) with ","; the outermost comes first. */
    private static String first(String s) {
        int comma = s.indexOf(',');
        return comma < 0 ? s : s.substring(0, comma);
    }

    private static byte[] addr(String s) throws Exception {
        return InetAddress.getByName(first(s)).getAddress();
    }

    private static long epochNanos(String s) {
        int dot = s.indexOf('.');
        String frac = (s.substring(dot + 1) + "000000000").substring(0, 9);
        return Long.parseLong(s.substring(0, dot)) * 1_000_000_000L + Long.parseLong(frac);
    }
}
