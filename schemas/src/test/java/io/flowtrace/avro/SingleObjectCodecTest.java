package io.flowtrace.avro;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.stream.Stream;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.message.BadHeaderException;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.avro.message.MissingSchemaException;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecordBase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The shared codec writes byte for byte what Avro's own {@code BinaryMessageEncoder} writes for every
 * contract (the reference implementation of the specification's "Single-object encoding"), reads it
 * back, and refuses what the job must dead-letter with Avro's own exceptions.
 */
class SingleObjectCodecTest {

    static Stream<SpecificRecordBase> samples() {
        return SingleObjectEncodingTest.samples();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("samples")
    void encodesExactlyWhatAvrosMessageEncoderWrites(SpecificRecordBase record) throws IOException {
        SingleObjectCodec<SpecificRecordBase> codec = codecOf(record);
        SpecificData model = SpecificData.getForClass(record.getClass());
        ByteBuffer reference = new BinaryMessageEncoder<SpecificRecordBase>(model, record.getSchema()).encode(record);
        byte[] expected = new byte[reference.remaining()];
        reference.get(expected);

        assertThat(codec.encode(record)).isEqualTo(expected);
        assertThat(codec.encode(record))
                .as("the reused buffers leave nothing behind")
                .isEqualTo(expected);
        assertThat(codec.decode(expected)).isEqualTo(record);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("samples")
    void readsTheWriterFingerprintFromTheHeaderAlone(SpecificRecordBase record) {
        SingleObjectCodec<SpecificRecordBase> codec = codecOf(record);
        byte[] value = codec.encode(record);
        long expected = SchemaNormalization.parsingFingerprint64(record.getSchema());
        byte[] framed = new byte[value.length + 3];
        System.arraycopy(value, 0, framed, 3, value.length);

        assertThat(codec.fingerprint()).isEqualTo(expected);
        assertThat(SingleObjectCodec.fingerprintOf(value)).isEqualTo(expected);
        assertThat(SingleObjectCodec.fingerprintOrNull(value)).isEqualTo(expected);
        assertThat(SingleObjectCodec.fingerprintOf(framed, 3, value.length)).isEqualTo(expected);
        assertThat(codec.isWriterOf(value)).isTrue();
        assertThat(Arrays.copyOf(value, 10)).isEqualTo(codec.header());
    }

    @Test
    void theHeaderIsTheMarkerThenTheFingerprintLittleEndian() {
        long fp = SchemaNormalization.parsingFingerprint64(PacketEvent.getClassSchema());
        // written out by hand: C3 01, then fp's bytes from the lowest
        StringBuilder hex = new StringBuilder("c301");
        for (int i = 0; i < 8; i++) {
            hex.append(String.format("%02x", (fp >>> (8 * i)) & 0xff));
        }

        assertThat(HexFormat.of().formatHex(SingleObjectCodec.header(PacketEvent.getClassSchema())))
                .isEqualTo(hex.toString());
    }

    @Test
    void aValueWithoutAnIntactHeaderHasNoFingerprint() {
        assertThat(SingleObjectCodec.fingerprintOf(new byte[] {(byte) 0xC3, 0x01, 1, 2, 3}))
                .isEqualTo(SingleObjectCodec.NO_FINGERPRINT);
        assertThat(SingleObjectCodec.fingerprintOf(null)).isEqualTo(SingleObjectCodec.NO_FINGERPRINT);
        assertThat(SingleObjectCodec.fingerprintOrNull(new byte[] {2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22}))
                .isNull();
    }

    @Test
    void refusesWhatTheJobDeadLettersWithAvrosOwnExceptions() {
        SingleObjectCodec<PacketEvent> packets = SingleObjectCodec.of(PacketEvent.class);
        byte[] loss = SingleObjectCodec.of(ConntrackLoss.class).encode(SampleRecords.conntrackLoss());

        assertThatThrownBy(() -> packets.decode(AvroLengthGuardTest.gibibyteAgentId()))
                .isInstanceOf(AvroLengthGuard.LengthBombException.class)
                .hasMessageContaining("agent_id");
        assertThatThrownBy(() -> packets.decode(loss))
                .isInstanceOf(MissingSchemaException.class)
                .hasMessageStartingWith("Cannot resolve schema for fingerprint");
        assertThatThrownBy(() -> packets.decode(new byte[] {2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22}))
                .isInstanceOf(BadHeaderException.class);
    }

    @SuppressWarnings("unchecked")
    private static SingleObjectCodec<SpecificRecordBase> codecOf(SpecificRecordBase record) {
        return SingleObjectCodec.of((Class<SpecificRecordBase>) record.getClass());
    }
}
