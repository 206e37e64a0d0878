package io.flowtrace.agent.spool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DiskSpoolTest {
    @TempDir
    Path dir;

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static List<String> drain(DiskSpool spool, int perBatch) throws Exception {
        List<String> out = new ArrayList<>();
        while (!spool.isEmpty()) {
            SpoolBatch b = spool.peek(perBatch, 1 << 20);
            assertThat(b.isEmpty()).as("pending records but an empty batch").isFalse();
            for (SpoolRecord r : b.records()) {
                out.add(new String(r.key(), StandardCharsets.UTF_8) + "="
                        + new String(r.value(), StandardCharsets.UTF_8));
            }
            spool.commit(b);
        }
        return out;
    }

    @Test
    void keepsPacketMetadataFromOtherLocalUsersDirectory0700AndFiles0600() throws Exception {
        Path spoolDir = dir.resolve("spool");
        try (DiskSpool spool = DiskSpool.open(spoolDir, 1 << 20)) {
            assertThat(spool.append(bytes("key"), bytes("10.0.0.1:443 -> 10.0.0.2:51234")))
                    .isTrue();
            assertThat(java.nio.file.Files.getPosixFilePermissions(spoolDir))
                    .isEqualTo(java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
            List<Path> files;
            try (Stream<Path> s = Files.list(spoolDir)) {
                files = s.filter(p -> !p.getFileName().toString().startsWith("head"))
                        .toList();
            }
            assertThat(files).hasSizeGreaterThanOrEqualTo(2); // the lock and a segment
            for (Path f : files) {
                assertThat(Files.getPosixFilePermissions(f))
                        .as("%s", f)
                        .isEqualTo(java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
            }
        }
    }

    @Test
    void returnsRecordsInAppendOrderAcrossSegments() throws Exception {
        List<String> expected = new ArrayList<>();
        try (DiskSpool spool = DiskSpool.open(dir, 1 << 20)) {
            for (int i = 0; i < 5000; i++) {
                // 5000 × ~120 B spans several 64 KiB segments
                String v = "value-" + i + "-" + "x".repeat(100);
                assertThat(spool.append(bytes("k" + (i % 7)), bytes(v))).isTrue();
                expected.add("k" + (i % 7) + "=" + v);
            }
            assertThat(segments()).hasSizeGreaterThan(3);
            assertThat(spool.pendingRecords()).isEqualTo(5000);
            assertThat(drain(spool, 333)).containsExactlyElementsOf(expected);
            assertThat(spool.sizeBytes()).isZero();
        }
        assertThat(segments()).isEmpty();
    }

    @Test
    void refusesRecordsBeyondItsSizeLimitAndTakesThemAgainOnceDrained() throws Exception {
        try (DiskSpool spool = DiskSpool.open(dir, 10_000)) {
            int accepted = 0;
            while (spool.append(bytes("key"), new byte[100])) {
                accepted++;
            }
            // 8-byte segment header + n × (12 + 3 + 100) ≤ 10 000
            assertThat(accepted).isEqualTo((10_000 - 8) / 115);
            assertThat(spool.sizeBytes()).isLessThanOrEqualTo(10_000);
            assertThat(spool.append(bytes("key"), new byte[100])).isFalse();
            spool.commit(spool.peek(Integer.MAX_VALUE, 1 << 20));
            assertThat(spool.append(bytes("key"), new byte[100])).isTrue();
        }
    }

    @Test
    void aReopenedSpoolReplaysOnlyWhatWasNotCommitted() throws Exception {
        try (DiskSpool spool = DiskSpool.open(dir, 1 << 20)) {
            for (int i = 0; i < 10; i++) {
                spool.append(bytes("k"), bytes("v" + i));
            }
            SpoolBatch first = spool.peek(4, 1 << 20);
            spool.commit(first);
        }
        try (DiskSpool spool = DiskSpool.open(dir, 1 << 20)) {
            assertThat(spool.pendingRecords()).isEqualTo(6);
            spool.append(bytes("k"), bytes("v10"));
            assertThat(drain(spool, 100)).containsExactly("k=v4", "k=v5", "k=v6", "k=v7", "k=v8", "k=v9", "k=v10");
        }
    }

    @Test
    void cutsOffATornLastRecordLeftByACrash() throws Exception {
        try (DiskSpool spool = DiskSpool.open(dir, 1 << 20)) {
            spool.append(bytes("k"), bytes("complete"));
            spool.append(bytes("k"), bytes("torn-by-crash"));
        }
        Path seg = segments().get(0);
        long size = Files.size(seg);
        try (RandomAccessFile f = new RandomAccessFile(seg.toFile(), "rw")) {
            f.setLength(size - 5);
        }
        try (DiskSpool spool = DiskSpool.open(dir, 1 << 20)) {
            assertThat(spool.recoveredTornBytes()).isEqualTo(12 + 1 + "torn-by-crash".length() - 5);
            assertThat(drain(spool, 10)).containsExactly("k=complete");
        }
    }

    @Test
    void aFlippedByteIsACorruptSpoolNamingFileAndOffset() throws Exception {
        try (DiskSpool spool = DiskSpool.open(dir, 1 << 20)) {
            spool.append(bytes("k"), bytes("first"));
            spool.append(bytes("k"), bytes("second"));
        }
        Path seg = segments().get(0);
        long secondRecord = 8 + 12 + 1 + "first".length();
        try (RandomAccessFile f = new RandomAccessFile(seg.toFile(), "rw")) {
            f.seek(secondRecord + 10);
            f.write('X');
        }
        assertThatThrownBy(() -> DiskSpool.open(dir, 1 << 20))
                .isInstanceOf(SpoolCorruptedException.class)
                .hasMessageContaining(seg.toString())
                .hasMessageContaining("byte offset " + secondRecord)
                .hasMessageContaining("CRC");
    }

    @Test
    void aFileThatIsNotASpoolSegmentIsRejected() throws Exception {
        Files.write(dir.resolve("00000000000000000000.seg"), bytes("not a spool file at all"));
        assertThatThrownBy(() -> DiskSpool.open(dir, 1 << 20))
                .isInstanceOf(SpoolCorruptedException.class)
                .hasMessageContaining("bad magic");
    }

    @Test
    void anUnreadableHeadCheckpointIsACorruptSpool() throws Exception {
        Files.writeString(dir.resolve("head"), "garbage");
        assertThatThrownBy(() -> DiskSpool.open(dir, 1 << 20))
                .isInstanceOf(SpoolCorruptedException.class)
                .hasMessageContaining("head checkpoint");
    }

    @Test
    void aSecondAgentCannotOpenTheSameSpool() throws Exception {
        try (DiskSpool spool = DiskSpool.open(dir, 1 << 20)) {
            assertThatThrownBy(() -> DiskSpool.open(dir, 1 << 20))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("already open");
        }
    }

    private List<Path> segments() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.toString().endsWith(".seg")).sorted().toList();
        }
    }
}
