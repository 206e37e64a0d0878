package io.flowtrace.jobs.input;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.avro.DeadLetter;
import io.flowtrace.avro.DeadLetterStage;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** A dead letter of a 1 MiB record keeps 64 KiB of it and says how long it was. */
class DeadLetterLimitsTest {
    @Test
    void aLongRawValueIsCutAndItsLengthKeptInTheReason() {
        byte[] raw = new byte[1 << 20];
        Arrays.fill(raw, (byte) 7);
        raw[0] = 1;
        raw[65_535] = 2;
        raw[65_536] = 3;
        DeadLetter d = letter(raw);

        assertThat(DeadLetterLimits.truncate(d, 65_536)).isTrue();
        assertThat(d.getRaw().remaining()).isEqualTo(65_536);
        assertThat(d.getRaw().get(0)).isEqualTo((byte) 1);
        assertThat(d.getRaw().get(65_535)).isEqualTo((byte) 2);
        assertThat(d.getReason()).isEqualTo("bad [raw value cut to its first 65536 of 1048576 bytes]");
    }

    @Test
    void aShortOneIsLeftAsItIs() {
        DeadLetter d = letter(new byte[] {1, 2, 3});
        assertThat(DeadLetterLimits.truncate(d, 3)).isFalse();
        assertThat(d.getRaw()).isEqualTo(ByteBuffer.wrap(new byte[] {1, 2, 3}));
        assertThat(d.getReason()).isEqualTo("bad");
    }

    @Test
    void aHundredASecondAfterABurstOfAThousand() {
        DeadLetterLimits limits = new DeadLetterLimits(65_536, 100);
        limits.start(0);
        int passed = 0;
        for (int i = 0; i < 5_000; i++) {
            passed += limits.admit(0) ? 1 : 0;
        }
        assertThat(passed).isEqualTo(1_000); // 10 s x 100/s
        passed = 0;
        for (int i = 0; i < 5_000; i++) {
            passed += limits.admit(2_000) ? 1 : 0;
        }
        assertThat(passed).isEqualTo(200); // 2 s later: 2 x 100
    }

    private static DeadLetter letter(byte[] raw) {
        return DeadLetter.newBuilder()
                .setTopic("flowtrace.packets")
                .setPartition(0)
                .setOffset(0)
                .setTimestampMs(0)
                .setReason("bad")
                .setRaw(ByteBuffer.wrap(raw))
                .setStage(DeadLetterStage.DECODE)
                .setJobTimeMs(0)
                .build();
    }
}
