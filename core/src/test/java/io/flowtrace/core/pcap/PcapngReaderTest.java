package io.flowtrace.core.pcap;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PcapngReaderTest {
    private final List<CaptureFormatException> errors = new ArrayList<>();

    /** Block layout per draft-ietf-opsawg-pcapng §3.1: type, length, body padded to 4, length. */
    private static byte[] block(ByteOrder order, int type, byte[] body) {
        int len = 12 + ((body.length + 3) & ~3);
        return ByteBuffer.allocate(len)
                .order(order)
                .putInt(type)
                .putInt(len)
                .put(body)
                .position(len - 4)
                .putInt(len)
                .array();
    }

    private static byte[] shb(ByteOrder order) {
        return block(
                order,
                0x0A0D0D0A,
                ByteBuffer.allocate(16)
                        .order(order)
                        .putInt(0x1A2B3C4D)
                        .putShort((short) 1)
                        .putShort((short) 0)
                        .putLong(-1)
                        .array());
    }

    private static byte[] idb(ByteOrder order, int linkType, int tsresol) {
        ByteBuffer b = ByteBuffer.allocate(8 + (tsresol >= 0 ? 8 + 4 : 0)).order(order);
        b.putShort((short) linkType).putShort((short) 0).putInt(262144);
        if (tsresol >= 0) {
            b.putShort((short) 9)
                    .putShort((short) 1)
                    .put((byte) tsresol)
                    .put(new byte[3])
                    .putShort((short) 0)
                    .putShort((short) 0);
        }
        return block(order, 1, b.array());
    }

    private static byte[] epb(ByteOrder order, int iface, long units, byte[] data) {
        ByteBuffer b = ByteBuffer.allocate(20 + ((data.length + 3) & ~3)).order(order);
        b.putInt(iface)
                .putInt((int) (units >>> 32))
                .putInt((int) units)
                .putInt(data.length)
                .putInt(data.length + 100)
                .put(data);
        return block(order, 6, b.array());
    }

    private static byte[] spb(ByteOrder order, byte[] data) {
        ByteBuffer b = ByteBuffer.allocate(4 + ((data.length + 3) & ~3)).order(order);
        b.putInt(data.length).put(data);
        return block(order, 3, b.array());
    }

    private static byte[] cat(byte[]... parts) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            o.writeBytes(p);
        }
        return o.toByteArray();
    }

    private List<CaptureRecordCopy> readAll(byte[] file) throws Exception {
        List<CaptureRecordCopy> out = new ArrayList<>();
        try (CaptureReader r = CaptureReader.open(new ByteArrayInputStream(file), errors::add)) {
            CaptureRecord rec = new CaptureRecord();
            while (r.next(rec)) {
                out.add(new CaptureRecordCopy(
                        rec.recordNumber,
                        rec.interfaceId,
                        rec.linkType,
                        rec.timestampNanos,
                        rec.capturedLength,
                        rec.wireLength,
                        rec.data[rec.dataOffset]));
            }
        }
        return out;
    }

    record CaptureRecordCopy(long number, int iface, int linkType, long nanos, int captured, int wire, byte first) {}

    @Test
    void readsTwoInterfacesWithTheirOwnResolutionAndLinkType() throws Exception {
        for (ByteOrder order : new ByteOrder[] {ByteOrder.LITTLE_ENDIAN, ByteOrder.BIG_ENDIAN}) {
            errors.clear();
            byte[] file = cat(
                    shb(order),
                    idb(order, 1, -1),
                    idb(order, 113, 9),
                    epb(order, 0, 1_700_000_000_000_001L, new byte[] {7, 7, 7}),
                    block(order, 5, new byte[16]), // interface statistics: skipped
                    epb(order, 1, 1_700_000_000_000_000_002L, new byte[] {9}));
            List<CaptureRecordCopy> recs = readAll(file);
            assertThat(recs)
                    .containsExactly(
                            new CaptureRecordCopy(1, 0, 1, 1_700_000_000_000_001_000L, 3, 103, (byte) 7),
                            new CaptureRecordCopy(2, 1, 113, 1_700_000_000_000_000_002L, 1, 101, (byte) 9));
            assertThat(errors).isEmpty();
        }
    }

    @Test
    void readsSimplePacketBlocksAndMultipleSections() throws Exception {
        ByteOrder le = ByteOrder.LITTLE_ENDIAN;
        byte[] file = cat(
                shb(le),
                idb(le, 1, -1),
                spb(le, new byte[] {1, 2, 3, 4, 5}),
                shb(ByteOrder.BIG_ENDIAN),
                idb(ByteOrder.BIG_ENDIAN, 101, -1),
                epb(ByteOrder.BIG_ENDIAN, 0, 5_000_000L, new byte[] {0x45}));
        List<CaptureRecordCopy> recs = readAll(file);
        assertThat(recs).hasSize(2);
        assertThat(recs.get(0).captured()).isEqualTo(5);
        assertThat(recs.get(1).linkType()).isEqualTo(101);
        assertThat(recs.get(1).nanos()).isEqualTo(5_000_000_000L);
    }

    @Test
    void convertsBinaryTimestampResolution() {
        // if_tsresol 0x94: 2^-20 s units; 2^20 units = 1 s, 2^19 units = 0.5 s
        assertThat(PcapngReader.toNanos((3L << 20) + (1L << 19), 0x80 | 20)).isEqualTo(3_500_000_000L);
        assertThat(PcapngReader.toNanos(12_345, 3)).isEqualTo(12_345_000_000L);
        assertThat(PcapngReader.toNanos(12_345, 12)).isEqualTo(12L);
    }

    @Test
    void skipsAPacketOfAnUndeclaredInterfaceAndResynchronisesAfterAnAbsurdLength() throws Exception {
        ByteOrder le = ByteOrder.LITTLE_ENDIAN;
        byte[] bad = epb(le, 0, 1, new byte[] {1});
        ByteBuffer.wrap(bad).order(le).putInt(4, 0x7ffffff0);
        byte[] file = cat(shb(le), idb(le, 1, -1), epb(le, 3, 1, new byte[] {1}), bad, epb(le, 0, 2, new byte[] {2}));
        List<CaptureRecordCopy> recs = readAll(file);
        assertThat(recs).extracting(CaptureRecordCopy::first).containsExactly((byte) 2);
        assertThat(errors).hasSize(2);
        assertThat(errors.get(0).getMessage()).contains("undeclared interface 3");
        assertThat(errors.get(1).getMessage()).contains("absurd block length");
    }

    @Test
    void skipsAPacketWhoseInterfaceIdHasTheHighBitSet() throws Exception {
        // found by CaptureFuzzTest: an interface id above 2^31 once became a negative array index
        ByteOrder le = ByteOrder.LITTLE_ENDIAN;
        byte[] file =
                cat(shb(le), idb(le, 1, -1), epb(le, 0x83000000, 1, new byte[] {1}), epb(le, 0, 2, new byte[] {2}));
        assertThat(readAll(file)).extracting(CaptureRecordCopy::first).containsExactly((byte) 2);
        assertThat(errors)
                .singleElement()
                .satisfies(e -> assertThat(e.getMessage()).contains("undeclared interface"));
    }

    @Test
    void reportsATruncatedTail() throws Exception {
        ByteOrder le = ByteOrder.LITTLE_ENDIAN;
        byte[] file = cat(shb(le), idb(le, 1, -1), epb(le, 0, 1, new byte[40]), epb(le, 0, 2, new byte[40]));
        byte[] cut = java.util.Arrays.copyOf(file, file.length - 10);
        assertThat(readAll(cut)).hasSize(1);
        assertThat(errors)
                .singleElement()
                .satisfies(e -> assertThat(e.recordNumber()).isEqualTo(2));
    }

    @Test
    void anSll2InterfaceAloneGivesEachFrameTheInterfaceIndexOfItsHeader() throws Exception {
        // LINKTYPE_LINUX_SLL2 (276): protocol (2), reserved (2), interface index (4, network byte order), ...
        byte[] onIndex7 = {0x08, 0x00, 0, 0, 0, 0, 0, 7, 0, 1, 4, 6, 2, 0, 0, 0, 0, 1, 0, 0};
        byte[] onIndex300 = {0x08, 0x00, 0, 0, 0, 0, 1, 44, 0, 1, 4, 6, 2, 0, 0, 0, 0, 1, 0, 0};
        byte[] cut = {0x08, 0x00, 0, 0, 0, 0};
        ByteOrder le = ByteOrder.LITTLE_ENDIAN;
        byte[] any =
                cat(shb(le), idb(le, 276, -1), epb(le, 0, 1, onIndex7), epb(le, 0, 2, onIndex300), epb(le, 0, 3, cut));
        assertThat(readAll(any)).extracting(CaptureRecordCopy::iface).containsExactly(7, 300, 0);

        // beside another interface the pcapng's own ids stay: the two id spaces would mix
        byte[] two = cat(shb(le), idb(le, 1, -1), idb(le, 276, -1), epb(le, 1, 1, onIndex7));
        assertThat(readAll(two)).extracting(CaptureRecordCopy::iface).containsExactly(1);
        assertThat(errors).isEmpty();
    }
}
