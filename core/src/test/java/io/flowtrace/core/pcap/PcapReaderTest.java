package io.flowtrace.core.pcap;

import static io.flowtrace.core.testing.Frames.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowtrace.core.testing.Frames;
import java.io.ByteArrayInputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class PcapReaderTest {
    private static final byte[] F1 = bytes(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14);
    private static final byte[] F2 = new byte[60];

    private final List<CaptureFormatException> errors = new ArrayList<>();

    private List<long[]> readAll(byte[] file) throws Exception {
        List<long[]> out = new ArrayList<>();
        try (CaptureReader r = CaptureReader.open(new ByteArrayInputStream(file), errors::add)) {
            CaptureRecord rec = new CaptureRecord();
            while (r.next(rec)) {
                out.add(new long[] {
                    rec.recordNumber,
                    rec.timestampNanos,
                    rec.capturedLength,
                    rec.linkType,
                    rec.data[rec.dataOffset] & 0xff
                });
            }
        }
        return out;
    }

    @Test
    void readsMicrosecondLittleEndian() throws Exception {
        List<long[]> recs = readAll(Frames.pcap(false, false, 1, F1, F2));
        assertThat(recs).hasSize(2);
        assertThat(recs.get(0)).containsExactly(1, 1_700_000_000_123_456_000L, 14, 1, 1);
        assertThat(recs.get(1)[1]).isEqualTo(1_700_000_001_123_456_000L);
        assertThat(errors).isEmpty();
    }

    @Test
    void readsNanosecondBigEndian() throws Exception {
        List<long[]> recs = readAll(Frames.pcap(true, true, 101, F1));
        assertThat(recs).hasSize(1);
        assertThat(recs.get(0)).containsExactly(1, 1_700_000_000_123_456_789L, 14, 101, 1);
    }

    @Test
    void reportsATruncatedLastRecordAndKeepsTheOthers() throws Exception {
        byte[] file = Frames.pcap(false, false, 1, F1, F2);
        byte[] cut = Arrays.copyOf(file, file.length - 7);
        List<long[]> recs = readAll(cut);
        assertThat(recs).hasSize(1);
        assertThat(errors).singleElement().satisfies(e -> {
            assertThat(e.recordNumber()).isEqualTo(2);
            assertThat(e.byteOffset()).isEqualTo(24 + 16 + 14);
            assertThat(e.getMessage()).contains("truncated").contains("53 of 60");
        });
    }

    @Test
    void resynchronisesAfterAnAbsurdRecordLength() throws Exception {
        byte[] file = Frames.pcap(false, false, 1, F1, F2, F1, F2);
        int second = 24 + 16 + 14;
        file[second + 8] = (byte) 0xff; // captured length of record 2 becomes absurd
        file[second + 9] = (byte) 0xff;
        file[second + 10] = (byte) 0xff;
        List<long[]> recs = readAll(file);
        assertThat(recs).extracting(r -> r[2]).containsExactly(14L, 14L, 60L);
        assertThat(errors).singleElement().satisfies(e -> {
            assertThat(e.recoverable()).isTrue();
            assertThat(e.byteOffset()).isEqualTo(second);
            assertThat(e.getMessage()).contains("absurd captured length");
        });
    }

    @Test
    void rejectsUnknownMagicNamingIt() {
        assertThatThrownBy(() -> readAll(bytes(0xde, 0xad, 0xbe, 0xef, 0, 0, 0, 0)))
                .isInstanceOf(CaptureFormatException.class)
                .hasMessageContaining("magic 0xdeadbeef");
        assertThatThrownBy(() -> readAll(new byte[0])).isInstanceOf(CaptureFormatException.class);
    }

    @Test
    void readsFromAPipeThatDeliversOneByteAtATime() throws Exception {
        byte[] file = Frames.pcap(false, true, 1, F1, F2, F1);
        var trickle = new ByteArrayInputStream(file) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                return super.read(b, off, Math.min(len, 1));
            }
        };
        int n = 0;
        try (CaptureReader r = CaptureReader.open(trickle)) {
            CaptureRecord rec = new CaptureRecord();
            while (r.next(rec)) {
                n++;
            }
        }
        assertThat(n).isEqualTo(3);
    }
}
