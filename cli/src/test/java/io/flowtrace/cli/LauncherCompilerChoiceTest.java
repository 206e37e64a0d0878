package io.flowtrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.core.testing.TestData;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher's choice of compiler ({@code scripts/jit.sh}, sourced by {@code ./flowtrace}):
 * tiered compilation for captures of 768 MiB (805,306,368 bytes) or more, a {@code .gz} file
 * counting four times its size, C1 only for everything else. Run with bash on sparse files, so no
 * gigabyte is written.
 */
class LauncherCompilerChoiceTest {
    private static final long MIB = 1L << 20;

    @TempDir
    Path dir;

    @Test
    void oneCaptureAtTheThresholdOrAboveIsLarge() throws Exception {
        assertThat(choice(sparse("exactly.pcap", 768 * MIB))).isEqualTo("large");
        assertThat(choice(sparse("big.pcapng", 800_000_000L + 10_000_000L))).isEqualTo("large");
    }

    @Test
    void oneCaptureBelowTheThresholdIsSmall() throws Exception {
        assertThat(choice(sparse("just-below.pcap", 768 * MIB - 1))).isEqualTo("small");
        assertThat(choice(sparse("570mb.pcap", 570_736_324L))).isEqualTo("small");
    }

    @Test
    void aGzipFileCountsFourTimesItsSize() throws Exception {
        // 192 MiB x 4 = 768 MiB: large; one byte less is 4 bytes short of it.
        assertThat(choice(sparse("a.pcap.gz", 192 * MIB))).isEqualTo("large");
        assertThat(choice(sparse("b.pcap.gz", 192 * MIB - 1))).isEqualTo("small");
        // the same size without .gz is a quarter of the threshold
        assertThat(choice(sparse("c.pcap", 192 * MIB))).isEqualTo("small");
    }

    @Test
    void theFilesOnTheLineAreAddedUp() throws Exception {
        // 400 MiB + 368 MiB = 768 MiB
        assertThat(choice("analyze", "--json", sparse("one.pcap", 400 * MIB), sparse("two.pcap", 368 * MIB)))
                .isEqualTo("large");
        assertThat(choice("analyze", sparse("three.pcap", 400 * MIB), sparse("four.pcap", 300 * MIB)))
                .isEqualTo("small");
    }

    @Test
    void argumentsThatAreNotRegularFilesDoNotCount() throws Exception {
        Path directory = Files.createDirectory(dir.resolve("captures"));
        assertThat(choice("analyze", "-", directory.toString(), "/nonexistent.pcap", "--top", "5"))
                .isEqualTo("small");
        assertThat(choice()).isEqualTo("small");
    }

    @Test
    void namesWithSpacesAndNewlinesAreMeasuredAsThemselves() throws Exception {
        String spaced = sparse("a capture\nwith a newline.pcap", 800 * MIB);
        String small = sparse("small one.pcap.gz", MIB);
        assertThat(choice(small, spaced)).isEqualTo("large");
        assertThat(choice(small)).isEqualTo("small");
    }

    private String sparse(String name, long bytes) throws IOException {
        Path file = dir.resolve(name);
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(bytes);
        }
        return file.toString();
    }

    /** Runs {@code flowtrace_large_capture ARGS} in bash with set -euo pipefail, as the launcher does. */
    private static String choice(String... args) throws IOException, InterruptedException {
        Path script = TestData.file("../scripts/jit.sh");
        List<String> command = new ArrayList<>(List.of(
                "bash",
                "-c",
                "set -euo pipefail; . \"$1\"; shift; if flowtrace_large_capture \"$@\"; then echo large; else echo"
                        + " small; fi",
                "jit-test",
                script.toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertThat(p.exitValue()).as(out).isZero();
        return out;
    }
}
