package io.flowtrace.core.openvpn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowtrace.core.net.Endpoint;
import io.flowtrace.core.pcap.CaptureFormatException;
import io.flowtrace.core.pcap.CaptureReader;
import io.flowtrace.core.pcap.CaptureRecord;
import io.flowtrace.core.pcap.DecodeStatus;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.core.pcap.PacketDecoder;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A flow written to bytes after every packet and read back before the next one (what keyed state
 * in the job does) ends exactly as a flow that never left memory, on every real capture.
 */
class OpenVpnFlowCodecTest {
    private static final OpenVpnSessionTracker.SessionListener NONE = s -> {};

    @Test
    void aFlowRestoredAfterEveryPacketEndsAsOneKeptInMemory() throws IOException, CaptureFormatException {
        long[] sessionsAndRetransmits = restoredAfterEveryPacket(OpenVpnCaptures.CASES);
        // 20 runs per case, each seen at both ends; the 100 KB push has server retransmissions
        // (testdata/openvpn/README.md): the comparison covered packet-id state, not just counters.
        assertThat(sessionsAndRetransmits[0]).isEqualTo(80);
        assertThat(sessionsAndRetransmits[1]).isPositive();
    }

    @Test
    void aTlsCryptFlowRestoredAfterEveryPacketInfersTheSameCopies() throws IOException, CaptureFormatException {
        // the runs and encrypted lengths of the inference (version 3) travel with the state: 40 runs
        // seen at both ends, with inferred copies (OpenVpnTlsCryptInferenceTest). This feed keys
        // flows without analyze's server link for tls-crypt, so more, unlinked sessions (161, not 80)
        long[] sessionsAndRetransmits = restoredAfterEveryPacket("tls-crypt.loss5.push-1k");
        assertThat(sessionsAndRetransmits[0]).isGreaterThanOrEqualTo(80);
        assertThat(sessionsAndRetransmits[1]).isPositive();
    }

    private static long[] restoredAfterEveryPacket(String... captures) throws IOException, CaptureFormatException {
        long sessions = 0;
        long retransmits = 0;
        for (String c : captures) {
            for (String side : new String[] {"client", "server"}) {
                Map<String, OpenVpnFlow> kept = new LinkedHashMap<>();
                Map<String, byte[]> stored = new LinkedHashMap<>();
                feed(c + "." + side + ".pcap.gz", (key, open, p, h, fromClient) -> {
                    OpenVpnFlow k = kept.computeIfAbsent(key, x -> open.get());
                    k.onPacket(h, fromClient.test(k), p.timestampNanos, NONE);
                    byte[] bytes = stored.get(key);
                    OpenVpnFlow r = bytes == null ? open.get() : OpenVpnFlowCodec.fromBytes(bytes);
                    r.onPacket(h, fromClient.test(r), p.timestampNanos, NONE);
                    stored.put(key, OpenVpnFlowCodec.toBytes(r));
                });
                assertThat(stored.keySet()).isEqualTo(kept.keySet());
                for (Map.Entry<String, OpenVpnFlow> e : kept.entrySet()) {
                    assertThat(stored.get(e.getKey()))
                            .as(c + "." + side + " " + e.getKey())
                            .isEqualTo(OpenVpnFlowCodec.toBytes(e.getValue()));
                    OpenVpnFlow restored = OpenVpnFlowCodec.fromBytes(stored.get(e.getKey()));
                    for (int i = 0; i < restored.sessions().size(); i++) {
                        OpenVpnSession a = restored.sessions().get(i);
                        OpenVpnSession b = e.getValue().sessions().get(i);
                        assertThat(a.setupNanos()).isEqualTo(b.setupNanos());
                        assertThat(a.s2c().retransmitGapsUs()).isEqualTo(b.s2c().retransmitGapsUs());
                        assertThat(a.c2s().retransmitTimesNanos())
                                .isEqualTo(b.c2s().retransmitTimesNanos());
                        // NaN without samples (tls-crypt hides the ACKs): compared as values
                        assertThat(Double.compare(
                                        a.c2s().ackLatencyUs().mean(),
                                        b.c2s().ackLatencyUs().mean()))
                                .isZero();
                        retransmits += a.s2c().retransmits() + a.c2s().retransmits();
                    }
                    sessions += restored.sessions().size();
                }
            }
        }
        return new long[] {sessions, retransmits};
    }

    @Test
    void refusesCorruptStateWithAReasonInsteadOfAllocating() {
        OpenVpnFlow f = OpenVpnFlow.open(
                OpenVpnWire.defaults(), "a/if0", "10.0.0.1:5000", 5000, "10.0.0.2:1194", 1194, new OpenVpnHeader());
        byte[] bytes = OpenVpnFlowCodec.toBytes(f);
        byte[] lying = Arrays.copyOf(bytes, bytes.length);
        // the session count is the last int of an empty flow: claim 2^31-1 sessions
        lying[lying.length - 4] = 0x7f;
        assertThatThrownBy(() -> OpenVpnFlowCodec.fromBytes(lying))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("sessions");
        byte[] version = Arrays.copyOf(bytes, bytes.length);
        version[0] = 9;
        assertThatThrownBy(() -> OpenVpnFlowCodec.fromBytes(version))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("version 9");
        assertThatThrownBy(() -> OpenVpnFlowCodec.fromBytes(Arrays.copyOf(bytes, 5)))
                .isInstanceOf(IOException.class);
    }

    interface PacketConsumer {
        void accept(
                String key,
                java.util.function.Supplier<OpenVpnFlow> open,
                DecodedPacket p,
                OpenVpnHeader h,
                java.util.function.Predicate<OpenVpnFlow> fromClient)
                throws IOException;
    }

    /** Every decoded OpenVPN packet of a capture with its flow key, as OpenVpnSessionTracker keys flows. */
    private static void feed(String capture, PacketConsumer consumer) throws IOException, CaptureFormatException {
        PacketDecoder decoder = PacketDecoder.withUdp();
        OpenVpnWire wire = OpenVpnWire.defaults();
        OpenVpnHeaderDecoder ovpn = new OpenVpnHeaderDecoder(wire);
        try (InputStream in = OpenVpnCaptures.pcap(capture);
                CaptureReader reader = CaptureReader.open(in, e -> {})) {
            CaptureRecord rec = new CaptureRecord();
            DecodedPacket p = new DecodedPacket();
            OpenVpnHeader h = new OpenVpnHeader();
            while (reader.next(rec)) {
                if (decoder.decode(rec, p) != DecodeStatus.UDP) {
                    continue;
                }
                OpenVpnHeader.Kind kind = ovpn.decode(rec.data, p.payloadOffset, p.payloadCaptured, p.payloadLength, h);
                if (kind == OpenVpnHeader.Kind.TRUNCATED || kind == OpenVpnHeader.Kind.MALFORMED) {
                    continue;
                }
                String src = new Endpoint(Arrays.copyOf(p.srcAddr, p.addrLength), p.srcPort).toString();
                String dst = new Endpoint(Arrays.copyOf(p.dstAddr, p.addrLength), p.dstPort).toString();
                String key = src.compareTo(dst) < 0 ? src + "|" + dst : dst + "|" + src;
                int sp = p.srcPort;
                int dp = p.dstPort;
                consumer.accept(
                        key,
                        () -> OpenVpnFlow.open(wire, "t/if0", src, sp, dst, dp, h),
                        p,
                        h,
                        f -> f.client().equals(src));
            }
        }
    }
}
