package io.flowtrace.jobs.input;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.avro.PacketEvent;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.avro.SchemaNormalization;
import org.junit.jupiter.api.Test;

/**
 * The length-bomb defence lives in the decoder, not in JVM flags: this module's surefire sets Avro's
 * {@code -Dorg.apache.avro.limits.*}, so the record goes to a JVM of its own started without them and
 * with a 64 MiB heap, as a TaskManager, the demo or any cluster started without the flags would be.
 */
class LengthBombWithoutAvroLimitsTest {

    /**
     * 26 bytes: C3 01, the PacketEvent fingerprint (little-endian), capture_time_ns 0 (00), then
     * vantage.agent_id's length 2^30 (zig-zag 2^31 = varint 80 80 80 80 08), then ten 'A'.
     */
    private static byte[] gibibyteAgentId() {
        ByteBuffer b = ByteBuffer.allocate(26).order(ByteOrder.LITTLE_ENDIAN);
        b.put((byte) 0xC3)
                .put((byte) 0x01)
                .putLong(SchemaNormalization.parsingFingerprint64(PacketEvent.getClassSchema()));
        b.put((byte) 0x00).put(new byte[] {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x08});
        b.put("AAAAAAAAAA".getBytes(StandardCharsets.US_ASCII));
        return b.array();
    }

    @Test
    void aGibibyteStringClaimIsADecodeDeadLetterInAJvmWithoutAvroLimits() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Process p = new ProcessBuilder(List.of(
                        java,
                        "-Xmx64m",
                        "-cp",
                        classpath,
                        LengthBombProbe.class.getName(),
                        HexFormat.of().formatHex(gibibyteAgentId())))
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(out).contains("limits null"); // really without the -D flags
        assertThat(out).doesNotContain("OutOfMemoryError");
        assertThat(out)
                .contains("dead letter DECODE io.flowtrace.avro.AvroLengthGuard$LengthBombException")
                .contains("agent_id")
                .contains("1073741824");
        assertThat(p.exitValue()).as(out).isZero();
    }
}
