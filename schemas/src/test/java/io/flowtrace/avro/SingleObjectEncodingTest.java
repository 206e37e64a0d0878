package io.flowtrace.avro;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.message.BadHeaderException;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.avro.message.MissingSchemaException;
import org.apache.avro.message.SchemaStore;
import org.apache.avro.specific.SpecificRecordBase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Kafka values are Avro single-object encoding: 0xC3 0x01, the 8-byte little-endian CRC-64-AVRO
 * fingerprint of the writer schema, then the binary datum (Avro specification, "Single-object
 * encoding"). These tests pin that format and the failures the job turns into dead letters.
 */
class SingleObjectEncodingTest {

    static Stream<SpecificRecordBase> samples() {
        return Stream.of(
                SampleRecords.dataSegment(1_732_924_800_500_000_000L, 4_294_960_000L),
                SampleRecords.syn(),
                SampleRecords.batch(),
                SampleRecords.conntrackDestroy(),
                SampleRecords.conntrackLoss(),
                SampleRecords.flowRecord(),
                TcpEvent.newBuilder()
                        .setFlow(SampleRecords.flowRecord().getFlow())
                        .setIndex(3)
                        .setTimeUs(1_732_924_800_223_456L)
                        .setKind(TcpEventKind.RETRANSMISSION)
                        .setDirection(Direction.C2S)
                        .setRetransmitClass(RetransmitClass.FAST)
                        .setSeq(2_896L)
                        .setBytes(1_448L)
                        .setSinceOriginalUs(1_900L)
                        .build(),
                ServiceWindow.newBuilder()
                        .setWindowStartMs(1_732_924_800_000L)
                        .setWindowEndMs(1_732_924_810_000L)
                        .setWindowSizeMs(10_000L)
                        .setVantage(SampleRecords.vantage())
                        .setService("10.0.0.1:443")
                        .setConnections(100)
                        .setSetupUs(new Distribution(100L, 900.0, 1_150.0, 210.0, 1_100.0, 1_400.0, 1_900.0, 2_000.0))
                        .build(),
                VantageWindow.newBuilder()
                        .setVantage(SampleRecords.vantage())
                        .setPackets(10_000)
                        .build(),
                ConntrackBudget.newBuilder()
                        .setVantage(SampleRecords.vantage())
                        .setEventsNew(500)
                        .build(),
                DeadLetter.newBuilder()
                        .setTopic("flowtrace.packets")
                        .setPartition(1)
                        .setOffset(42)
                        .setTimestampMs(1_732_924_800_000L)
                        .setReason("Cannot resolve schema for fingerprint: 0")
                        .setRaw(ByteBuffer.wrap(new byte[] {1, 2, 3}))
                        .setStage(DeadLetterStage.DECODE)
                        .build(),
                OpenVpnBatch.newBuilder()
                        .setVantage(SampleRecords.vantage())
                        .setBaseTimeNs(1_732_924_800_000_000_000L)
                        .setLowAddr(ByteBuffer.wrap(new byte[] {10, 0, 0, 1}))
                        .setLowPort(1194)
                        .setHighAddr(ByteBuffer.wrap(new byte[] {10, 0, 0, 2}))
                        .setHighPort(40_000)
                        .setPackets(java.util.List.of(BatchedOpenVpnPacket.newBuilder()
                                .setPayloadLength(54)
                                .setCapturedPayloadLength(54)
                                .setHeader(ByteBuffer.wrap(new byte[] {0x38, 1, 2, 3, 4, 5, 6, 7, 8, 0}))
                                .setWireLength(96)
                                .build()))
                        .build(),
                OpenVpnSessionRecord.newBuilder()
                        .setVantage(SampleRecords.vantage())
                        .setClient("10.0.0.2:40000")
                        .setServer("10.0.0.1:1194")
                        .setClientId("0123456789abcdef")
                        .setFirstSeenUs(1_732_924_800_000_000L)
                        .build(),
                OpenVpnServerWindow.newBuilder()
                        .setVantage(SampleRecords.vantage())
                        .setServer("10.0.0.1:1194")
                        .setWindowStartMs(1_732_924_800_000L)
                        .setWindowEndMs(1_732_924_810_000L)
                        .setWindowSizeMs(10_000L)
                        .setSessions(3)
                        .setCompleted(2)
                        .build());
    }

    @Test
    void everyContractHasASample() {
        assertThat(samples().map(Object::getClass).distinct().toList()).containsAll(Contracts.ALL);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("samples")
    void roundTripsThroughSingleObjectEncoding(SpecificRecordBase record) throws IOException {
        ByteBuffer encoded = encode(record);
        SpecificRecordBase decoded = decoderFor(record).decode(encoded);

        assertThat(decoded).isEqualTo(record);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("samples")
    void startsWithMarkerAndWriterFingerprint(SpecificRecordBase record) throws IOException {
        ByteBuffer encoded = encode(record);
        long expected = SchemaNormalization.parsingFingerprint64(record.getSchema());

        assertThat(encoded.get(0)).isEqualTo((byte) 0xC3);
        assertThat(encoded.get(1)).isEqualTo((byte) 0x01);
        assertThat(encoded.order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong(2)).isEqualTo(expected);
    }

    @Test
    void contractsWithDefaultsOnlyRoundTrip() throws IOException {
        // newBuilder().build() fills every field from its schema default: the defaults are valid.
        FlowRecord empty = FlowRecord.newBuilder().build();

        assertThat(FlowRecord.fromByteBuffer(empty.toByteBuffer())).isEqualTo(empty);
        assertThat(empty.getEnd()).isEqualTo(FlowEnd.OPEN);
        assertThat(empty.getC2s().getRttUs().getSamples()).isZero();
    }

    @Test
    void wrongFingerprintFailsWithMissingSchemaException() throws IOException {
        byte[] bytes = toArray(SampleRecords.syn().toByteBuffer());
        bytes[2] ^= 0x5A; // corrupt the first fingerprint byte

        assertThatThrownBy(() -> PacketEvent.getDecoder().decode(bytes))
                .isInstanceOf(MissingSchemaException.class)
                .hasMessageStartingWith("Cannot resolve schema for fingerprint");
    }

    @Test
    void messageOfAnotherContractFailsWithMissingSchemaException() throws IOException {
        byte[] loss = toArray(SampleRecords.conntrackLoss().toByteBuffer());

        assertThatThrownBy(() -> ConntrackEvent.getDecoder().decode(loss)).isInstanceOf(MissingSchemaException.class);
    }

    @Test
    void plainAvroWithoutHeaderFailsWithBadHeaderException() {
        byte[] notSingleObject = {0x02, 0x04, 0x06, 0x08, 0x0A, 0x0C, 0x0E, 0x10, 0x12, 0x14, 0x16};

        assertThatThrownBy(() -> PacketEvent.getDecoder().decode(notSingleObject))
                .isInstanceOf(BadHeaderException.class)
                .hasMessageContaining("Unrecognized header bytes");
    }

    @Test
    void truncatedMessageFailsWithAnAvroRuntimeException() throws IOException {
        byte[] bytes = toArray(SampleRecords.dataSegment(1L, 1L).toByteBuffer());
        byte[] cut = java.util.Arrays.copyOf(bytes, bytes.length - 20);

        assertThatThrownBy(() -> PacketEvent.getDecoder().decode(cut))
                .isInstanceOf(org.apache.avro.AvroRuntimeException.class);
    }

    @Test
    void decoderWithSchemaStoreReadsAnOlderWriterVersion() throws IOException {
        // How a reader evolves: data written by an older agent (here a PacketEvent without the
        // 'truncated' field) decodes through a SchemaStore holding the older schema; the missing
        // field takes its default.
        Schema current = PacketEvent.getClassSchema();
        Schema older = new Schema.Parser()
                .parse(current.toString().replaceFirst(",\\{\"name\":\"truncated\".*?\"default\":false\\}\\]", "]"));
        assertThat(older.getField("truncated")).isNull();
        GenericRecord old = new GenericData.Record(older);
        PacketEvent sample = SampleRecords.syn();
        for (Schema.Field field : older.getFields()) {
            old.put(field.name(), sample.get(field.name()));
        }
        ByteBuffer oldBytes = new BinaryMessageEncoder<GenericRecord>(GenericData.get(), older).encode(old);
        SchemaStore.Cache store = new SchemaStore.Cache();
        store.addSchema(older);

        PacketEvent decoded = PacketEvent.createDecoder(store).decode(oldBytes);

        assertThat(decoded.getSeq()).isEqualTo(4_294_967_295L);
        assertThat(decoded.getMss()).isEqualTo(1440);
        assertThat(decoded.getTruncated()).isFalse();
        assertThatThrownBy(() -> PacketEvent.getDecoder().decode(oldBytes.rewind()))
                .isInstanceOf(MissingSchemaException.class);
    }

    @SuppressWarnings("unchecked")
    private static org.apache.avro.message.BinaryMessageDecoder<SpecificRecordBase> decoderFor(
            SpecificRecordBase record) {
        try {
            return (org.apache.avro.message.BinaryMessageDecoder<SpecificRecordBase>)
                    record.getClass().getMethod("getDecoder").invoke(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static ByteBuffer encode(SpecificRecordBase record) {
        try {
            return (ByteBuffer) record.getClass().getMethod("toByteBuffer").invoke(record);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] toArray(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }
}
