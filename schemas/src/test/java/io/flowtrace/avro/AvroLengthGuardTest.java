package io.flowtrace.avro;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.apache.avro.SchemaNormalization;
import org.junit.jupiter.api.Test;

/** Length bombs written byte by byte (Avro specification, "Binary encoding" and "Single-object encoding"). */
class AvroLengthGuardTest {
    private static final AvroLengthGuard PACKETS = AvroLengthGuard.of(PacketEvent.getClassSchema());

    /**
     * 26 bytes: C3 01, the PacketEvent fingerprint (8 bytes, little-endian), capture_time_ns = 0 (00),
     * then vantage.agent_id's length 2^30: zig-zag 2^31 = varint 80 80 80 80 08, then 10 bytes of 'A'.
     */
    static byte[] gibibyteAgentId() {
        ByteBuffer b = ByteBuffer.allocate(26).order(ByteOrder.LITTLE_ENDIAN);
        b.put((byte) 0xC3)
                .put((byte) 0x01)
                .putLong(SchemaNormalization.parsingFingerprint64(PacketEvent.getClassSchema()));
        b.put((byte) 0x00);
        b.put(new byte[] {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x08});
        byte[] pad = new byte[10];
        Arrays.fill(pad, (byte) 'A');
        b.put(pad);
        return b.array();
    }

    @Test
    void refusesAStringClaimingAGibibyteInA26ByteRecordNamingTheField() {
        byte[] bomb = gibibyteAgentId();
        assertThat(bomb).hasSize(26);
        assertThatThrownBy(() -> PACKETS.checkSingleObject(bomb))
                .isInstanceOf(AvroLengthGuard.LengthBombException.class)
                .hasMessageContaining("agent_id")
                .hasMessageContaining("1073741824")
                .hasMessageContaining("10 bytes left");
    }

    @Test
    void refusesANegativeLength() {
        byte[] bomb = gibibyteAgentId();
        bomb[11] = 0x01; // zig-zag 1 = -1
        assertThatThrownBy(() -> PACKETS.checkSingleObject(bomb)).hasMessageContaining("length -1 claimed");
    }

    @Test
    void refusesAnArrayClaimingMoreItemsThanBytesLeft() throws Exception {
        byte[] valid = SampleRecords.syn().toByteBuffer().array();
        // sack_blocks follows sack_permitted; rewrite the record from Avro's own encoding with a lying count
        PacketEvent p = SampleRecords.syn();
        p.setSackBlocks(java.util.List.of(new SackBlock(1L, 2L)));
        byte[] one = p.toByteBuffer().array();
        // one block of (left=1, right=2): count 02, then 02 04, then the end-of-array 00; claim 2^20 items instead
        int at = indexOf(one, new byte[] {0x02, 0x02, 0x04, 0x00});
        assertThat(at).isPositive();
        byte[] lie = new byte[one.length + 3]; // the 1-byte count becomes 4 bytes
        System.arraycopy(one, 0, lie, 0, at);
        lie[at] = (byte) 0x80;
        lie[at + 1] = (byte) 0x80;
        lie[at + 2] = (byte) 0x80; // zig-zag 2^21 = 2^20 items: 80 80 80 01
        lie[at + 3] = 0x01;
        System.arraycopy(one, at + 1, lie, at + 4, one.length - at - 1);
        assertThatCode(() -> PACKETS.checkSingleObject(valid)).doesNotThrowAnyException();
        assertThatCode(() -> PACKETS.checkSingleObject(one)).doesNotThrowAnyException();
        assertThatThrownBy(() -> PACKETS.checkSingleObject(lie))
                .hasMessageContaining("sack_blocks")
                .hasMessageContaining("1048576 items");
    }

    @Test
    void refusesATruncatedRecordAndLeavesAForeignHeaderToTheDecoder() throws Exception {
        byte[] valid = SampleRecords.dataSegment(1_700_000_000_000_000_000L, 1000)
                .toByteBuffer()
                .array();
        assertThatCode(() -> PACKETS.checkSingleObject(valid)).doesNotThrowAnyException();
        assertThatThrownBy(() -> PACKETS.checkSingleObject(Arrays.copyOf(valid, valid.length - 3)))
                .isInstanceOf(AvroLengthGuard.LengthBombException.class);
        byte[] conntrack = SampleRecords.conntrackDestroy().toByteBuffer().array();
        assertThatCode(() -> PACKETS.checkSingleObject(conntrack)).doesNotThrowAnyException();
        assertThatCode(() -> AvroLengthGuard.of(ConntrackEvent.getClassSchema()).checkSingleObject(conntrack))
                .doesNotThrowAnyException();
    }

    private static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = hay.length - needle.length; i >= 10; i--) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
