package io.flowtrace.avro.mapping;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.avro.PacketEvent;
import io.flowtrace.avro.SackBlock;
import io.flowtrace.avro.Vantage;
import io.flowtrace.core.pcap.CaptureReader;
import io.flowtrace.core.pcap.CaptureRecord;
import io.flowtrace.core.pcap.DecodeStatus;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.core.pcap.PacketDecoder;
import io.flowtrace.core.testing.TestData;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PacketEventsTest {
    private static final Vantage VANTAGE = new Vantage("host-a", "eth0");

    @ParameterizedTest
    @ValueSource(
            strings = {
                "decoding/tcp4-sack.pcap",
                "decoding/tcp6-sack.pcap",
                "decoding/tcp4-snap64.pcap",
                "decoding/vlan-qinq.pcap"
            })
    void carriesEveryAnalysedFieldThroughSingleObjectEncoding(String capture) throws Exception {
        int n = 0;
        try (InputStream in = Files.newInputStream(TestData.file(capture));
                CaptureReader r = CaptureReader.open(in)) {
            CaptureRecord rec = new CaptureRecord();
            DecodedPacket original = new DecodedPacket();
            DecodedPacket back = new DecodedPacket();
            PacketDecoder decoder = new PacketDecoder();
            while (r.next(rec)) {
                if (decoder.decode(rec, original) != DecodeStatus.TCP) {
                    continue;
                }
                ByteBuffer wire = PacketEvent.getEncoder().encode(PacketEvents.toAvro(original, VANTAGE));
                PacketEvent decoded = PacketEvent.getDecoder().decode(wire);
                assertThat(PacketEvents.invalidReason(decoded)).isNull();
                PacketEvents.fromAvro(decoded, back);
                assertThat(back)
                        .usingRecursiveComparison()
                        .ignoringFields(
                                "interfaceId",
                                "vlanOuter",
                                "vlanInner",
                                "fragmented",
                                "tcpHeaderLength",
                                "badOptions",
                                "truncation",
                                "reason",
                                // where the payload's bytes sit in the decoded frame: the OpenVPN pass of
                                // analyze reads them; a PacketEvent carries headers only (docs/schemas.md)
                                "payloadOffset",
                                "payloadCaptured")
                        .isEqualTo(original);
                assertThat(back.truncation != 0).isEqualTo(original.truncation != 0);
                n++;
            }
        }
        assertThat(n).isPositive();
    }

    @Test
    void namesTheReasonForAbsurdValues() {
        PacketEvent good = PacketEvent.newBuilder()
                .setCaptureTimeNs(1_700_000_000_000_000_000L)
                .setVantage(VANTAGE)
                .setSrcAddr(ByteBuffer.wrap(new byte[4]))
                .setDstAddr(ByteBuffer.wrap(new byte[4]))
                .build();
        assertThat(PacketEvents.invalidReason(good)).isNull();
        assertThat(PacketEvents.invalidReason(
                        PacketEvent.newBuilder(good).setPayloadLength(-5).build()))
                .contains("payload length -5");
        assertThat(PacketEvents.invalidReason(PacketEvent.newBuilder(good)
                        .setPayloadLength((int) 0xffffffffL)
                        .build()))
                .contains("payload length");
        assertThat(PacketEvents.invalidReason(PacketEvent.newBuilder(good)
                        .setSackBlocks(java.util.Collections.nCopies(100, new SackBlock(1L, 2L)))
                        .build()))
                .contains("100 SACK blocks");
        long fiftyYearsAgo = 1_700_000_000_000_000_000L - 50L * 365 * 86_400 * 1_000_000_000L;
        assertThat(PacketEvents.invalidReason(PacketEvent.newBuilder(good)
                        .setCaptureTimeNs(fiftyYearsAgo)
                        .build()))
                .contains("capture time");
        assertThat(PacketEvents.invalidReason(PacketEvent.newBuilder(good)
                        .setSrcAddr(ByteBuffer.wrap(new byte[16]))
                        .build()))
                .contains("address lengths 16/4");
        assertThat(PacketEvents.invalidReason(
                        PacketEvent.newBuilder(good).setSeq(1L << 33).build()))
                .contains("32 bits");
        assertThat(PacketEvents.invalidReason(PacketEvent.newBuilder(good)
                        .setSackBlocks(List.of())
                        .setIpVersion(5)
                        .build()))
                .contains("ip_version 5");
    }
}
