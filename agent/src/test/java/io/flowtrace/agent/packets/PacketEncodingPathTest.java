package io.flowtrace.agent.packets;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.avro.PacketEvent;
import io.flowtrace.avro.SingleObjectCodec;
import io.flowtrace.avro.Vantage;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.pcap.CaptureReader;
import io.flowtrace.core.pcap.CaptureRecord;
import io.flowtrace.core.pcap.DecodeStatus;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.core.pcap.PacketDecoder;
import io.flowtrace.core.testing.TestData;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The agent's fast paths give exactly what the contract's reference code gives, for every TCP
 * packet of real captures (IPv4, IPv6, two pcapng interfaces): the cached flow key equals
 * {@link PacketEvents#flowKey}, the agent's encoder (the shared single-object codec) equals {@code PacketEvent.getEncoder()}.
 */
class PacketEncodingPathTest {

    @ParameterizedTest
    @ValueSource(
            strings = {
                "tcp/reorder.sender.pcap.gz",
                "tcp/ipv6-loss.receiver.pcap.gz",
                "decoding/tcp4-2if.pcapng",
                "decoding/vlan-qinq.pcap",
                "tcp/short-conns.sender.pcap.gz"
            })
    void cachedKeysAndReusedEncoderMatchTheReferenceForEveryPacket(String capture) throws Exception {
        FlowKeyCache cache = new FlowKeyCache();
        SingleObjectCodec<PacketEvent> encoder = SingleObjectCodec.of(PacketEvent.class);
        long tcp = 0;
        try (InputStream in = Files.newInputStream(TestData.file(capture))) {
            CaptureReader reader = CaptureReader.open(in);
            CaptureRecord rec = new CaptureRecord();
            DecodedPacket p = new DecodedPacket();
            PacketDecoder decoder = new PacketDecoder();
            while (reader.next(rec)) {
                if (decoder.decode(rec, p) != DecodeStatus.TCP) {
                    continue;
                }
                tcp++;
                Vantage v = Vantage.newBuilder()
                        .setAgentId("a")
                        .setInterfaceName("if" + rec.interfaceId)
                        .build();
                VantagePoint vantage = PacketEvents.vantagePoint(v);
                assertThat(new String(cache.key(rec.interfaceId, vantage, p), StandardCharsets.UTF_8))
                        .isEqualTo(PacketEvents.flowKey(vantage, p));
                PacketEvent e = PacketEvents.toAvro(p, v);
                ByteBuffer reference = PacketEvent.getEncoder().encode(e);
                byte[] expected = new byte[reference.remaining()];
                reference.get(expected);
                assertThat(encoder.encode(e)).isEqualTo(expected);
            }
        }
        assertThat(tcp).isPositive();
    }
}
