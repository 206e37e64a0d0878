package io.flowtrace.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./flowtrace demo --pcap notes.txt} as a real process ({@link DemoMain}): one line naming the
 * option, the file and why, exit 2, and no service started (the demo's log, where Kafka, PostgreSQL and
 * Flink write from their first second, has none of their lines).
 */
class DemoPcapValidationTest {

    @Test
    void textFileGivenAsPcapIsRefusedBeforeAnyServiceStarts(@TempDir Path tmp) throws Exception {
        Path text = tmp.resolve("notes.txt");
        Files.writeString(text, "hello, these are my notes\n");
        Path log = tmp.resolve("demo.log");
        Path err = tmp.resolve("stderr.txt");
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Process p = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Dflowtrace.demo.log=" + log,
                        "-Dflowtrace.demo.lock=" + tmp.resolve("demo.lock"),
                        "-cp",
                        cp,
                        DemoMain.class.getName(),
                        "--allow-root",
                        "-q",
                        "--pcap",
                        text.toString())
                .redirectError(err.toFile())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS))
                .as("the demo ends by itself")
                .isTrue();
        assertThat(p.exitValue()).isEqualTo(2);
        // As root the demo first says how it runs PostgreSQL ("flowtrace demo: running as root. ..."): not about
        // --pcap.
        List<String> lines = Files.readAllLines(err, StandardCharsets.UTF_8).stream()
                .filter(l -> !l.startsWith("flowtrace demo: running as root"))
                .toList();
        assertThat(lines).hasSize(2);
        assertThat(lines.get(0))
                .isEqualTo("flowtrace demo: --pcap " + text
                        + ": not a pcap or pcapng file: magic 0x68656c6c (record 0, byte offset 0)");
        assertThat(lines.get(1)).isEqualTo("Try 'flowtrace demo --help' for more information.");
        // DemoMain logs its command line first; Kafka, PostgreSQL and Flink would log from their first second.
        String logged = Files.exists(log)
                ? Files.readString(log, StandardCharsets.UTF_8).toLowerCase(java.util.Locale.ROOT)
                : "";
        assertThat(logged)
                .as("no service was started")
                .doesNotContain("kafka")
                .doesNotContain("postgres")
                .doesNotContain("flink")
                .doesNotContain("minicluster");
    }
}
