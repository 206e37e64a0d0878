package io.flowtrace.avro;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowtrace.avro.mapping.PacketBatches;
import io.flowtrace.avro.mapping.PacketEvents;
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
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificRecordBase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The fused length check decodes every real record exactly as Avro's own {@code BinaryDecoder}
 * does, and refuses length bombs written byte by byte (Avro specification, "Binary encoding").
 */
class BoundedBinaryDecoderTest {
    private static final Vantage VANTAGE = new Vantage("host-a", "eth0");

    @ParameterizedTest
    @ValueSource(strings = {"decoding/tcp4-sack.pcap", "decoding/tcp6-sack.pcap", "join/client.pcap"})
    void decodesTheBatchesOfARealCaptureAsAvrosBinaryDecoder(String capture) throws Exception {
        Map<String, List<DecodedPacket>> flows = flows(capture);
        assertThat(flows).isNotEmpty();
        SpecificDatumReader<PacketBatch> viaAvro = new SpecificDatumReader<>(PacketBatch.class);
        SpecificDatumReader<PacketBatch> viaBounded = new SpecificDatumReader<>(PacketBatch.class);
        BoundedBinaryDecoder bounded = new BoundedBinaryDecoder(new byte[0], 0, 0);
        PacketBatch reused = null;
        int batches = 0;
        for (List<DecodedPacket> packets : flows.values()) {
            for (int from = 0; from < packets.size(); from += 7) {
                byte[] value = PacketBatches.toAvro(VANTAGE, packets.subList(from, Math.min(packets.size(), from + 7)))
                        .toByteBuffer()
                        .array();
                PacketBatch expected = viaAvro.read(null, avro(value));
                reused = viaBounded.read(reused, bounded.reset(value, 10, value.length - 10)); // Avro's object reuse
                assertThat(reused).isEqualTo(expected);
                assertThat(bounded.remaining()).isZero();
                batches++;
            }
        }
        assertThat(batches).isGreaterThan(flows.size());
    }

    @Test
    void decodesTheOtherContractsAsAvrosBinaryDecoder() throws Exception {
        // strings, unions, enums, doubles, maps and nested records of every schema with a sample
        assertSameAsAvro(SampleRecords.syn());
        assertSameAsAvro(SampleRecords.dataSegment(1_700_000_000_000_000_000L, 1000));
        assertSameAsAvro(SampleRecords.batch());
        assertSameAsAvro(SampleRecords.conntrackDestroy());
        assertSameAsAvro(SampleRecords.conntrackLoss());
        assertSameAsAvro(SampleRecords.flowRecord());
    }

    /**
     * 26 bytes: C3 01, the PacketEvent fingerprint, capture_time_ns 0 (00), then vantage.agent_id's
     * length 2^30 (zig-zag 2^31 = 80 80 80 80 08), then ten 'A'.
     */
    @Test
    void refusesAStringClaimingAGibibyteInA26ByteRecord() {
        byte[] bomb = HexFormat.of()
                .parseHex("c301" + fingerprint(PacketEvent.class) + "00" + "8080808008" + "41".repeat(10));
        assertThat(bomb).hasSize(26);
        assertThatThrownBy(() -> read(PacketEvent.class, bomb))
                .isInstanceOf(AvroLengthGuard.LengthBombException.class)
                .hasMessage("Avro length check: string length 1073741824 claimed, the record has 10 bytes left");
        bomb[11] = 0x01; // zig-zag 1 = -1
        assertThatThrownBy(() -> read(PacketEvent.class, bomb))
                .hasMessage("Avro length check: string length -1 claimed, the record has 14 bytes left");
    }

    /**
     * A PacketBatch header written byte by byte: vantage ("", "") 00 00, link_type 1 = 02, ip_version
     * 4 = 08, low_addr 4 bytes = 08 0a000001, low_port 0 = 00, high_addr 08 0a000002, high_port 00,
     * base_time_ns, low_seq_base and high_seq_base 0 = 00 00 00; then the packets array.
     */
    private static final String BATCH_HEADER =
            "0000" + "02" + "08" + "080a000001" + "00" + "080a000002" + "00" + "000000";

    @Test
    void refusesABatchClaimingAMebiPacketsInAFewBytes() {
        // count 2^20: zig-zag 2^21 = 80 80 80 01, then four bytes of packet
        byte[] bomb = batch(BATCH_HEADER + "80808001" + "00000000");
        assertThatThrownBy(() -> read(PacketBatch.class, bomb))
                .isInstanceOf(AvroLengthGuard.LengthBombException.class)
                .hasMessage("Avro length check: a block claims 1048576 items, the record has 4 bytes left");
    }

    @Test
    void refusesABlockSizeBeyondTheRecordAndTheCountThatCannotBeNegated() {
        // count -1 (01) announces a block size: 2^30 = 80 80 80 80 08
        assertThatThrownBy(() -> read(PacketBatch.class, batch(BATCH_HEADER + "01" + "8080808008" + "00")))
                .hasMessage("Avro length check: block size 1073741824 claimed, the record has 1 bytes left");
        // count Long.MIN_VALUE: zig-zag 2^64 - 1 = ff ff ff ff ff ff ff ff ff 01, block size 0
        assertThatThrownBy(() -> read(PacketBatch.class, batch(BATCH_HEADER + "ff".repeat(9) + "01" + "00" + "00")))
                .hasMessage(
                        "Avro length check: a block claims " + Long.MIN_VALUE + " items, the record has 1 bytes left");
    }

    @Test
    void refusesAnIntWiderThan32BitsANumberWiderThan10BytesAndATruncatedRecord() throws Exception {
        // link_type 2^32 (zig-zag 2^33 = 80 80 80 80 20): 5 bytes but beyond an int
        assertThatThrownBy(() -> read(PacketBatch.class, batch("0000" + "8080808020" + "08")))
                .hasMessage("Avro length check: an int of 5 bytes (4294967296)");
        assertThatThrownBy(() -> read(PacketBatch.class, batch("0000" + "ff".repeat(11))))
                .hasMessage("Avro length check: a number longer than 10 bytes");
        assertThatThrownBy(() -> read(PacketBatch.class, batch(BATCH_HEADER.substring(0, 8))))
                .hasMessage("Avro length check: the record ends inside a number");
        byte[] valid = SampleRecords.batch().toByteBuffer().array();
        assertThatThrownBy(() -> read(PacketBatch.class, Arrays.copyOf(valid, valid.length - 1)))
                .isInstanceOf(AvroLengthGuard.LengthBombException.class);
    }

    private static <T extends SpecificRecordBase> void assertSameAsAvro(T record) throws Exception {
        @SuppressWarnings("unchecked")
        Class<T> type = (Class<T>) record.getClass();
        byte[] value = SingleObjectCodec.of(type).encode(record);
        T expected = new SpecificDatumReader<>(type).read(null, avro(value));
        assertThat(read(type, value)).isEqualTo(expected);
    }

    private static <T> T read(Class<T> type, byte[] value) throws Exception {
        BoundedBinaryDecoder in = new BoundedBinaryDecoder(value, 10, value.length - 10);
        T out = new SpecificDatumReader<>(type).read(null, in);
        assertThat(in.remaining()).isZero();
        return out;
    }

    private static BinaryDecoder avro(byte[] value) {
        return DecoderFactory.get().binaryDecoder(value, 10, value.length - 10, null);
    }

    private static byte[] batch(String datumHex) {
        return HexFormat.of().parseHex("c301" + fingerprint(PacketBatch.class) + datumHex);
    }

    /** The 8 fingerprint bytes of a class's single-object header, as hex. */
    private static String fingerprint(Class<? extends SpecificRecordBase> type) {
        byte[] header = SingleObjectCodec.header(
                org.apache.avro.specific.SpecificData.get().getSchema(type));
        return HexFormat.of().formatHex(header, 2, 10);
    }

    private static Map<String, List<DecodedPacket>> flows(String capture) throws Exception {
        Map<String, List<DecodedPacket>> flows = new LinkedHashMap<>();
        try (InputStream in = Files.newInputStream(TestData.file(capture));
                CaptureReader r = CaptureReader.open(in)) {
            CaptureRecord rec = new CaptureRecord();
            PacketDecoder decoder = new PacketDecoder();
            DecodedPacket p = new DecodedPacket();
            while (r.next(rec)) {
                if (decoder.decode(rec, p) == DecodeStatus.TCP) {
                    DecodedPacket copy = new DecodedPacket();
                    copy.copyFrom(p);
                    flows.computeIfAbsent(
                                    PacketEvents.flowKey(PacketEvents.vantagePoint(VANTAGE), p), k -> new ArrayList<>())
                            .add(copy);
                }
            }
        }
        return flows;
    }
}
