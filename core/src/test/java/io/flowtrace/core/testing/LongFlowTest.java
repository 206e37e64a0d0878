package io.flowtrace.core.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.core.pcap.CaptureReader;
import io.flowtrace.core.pcap.CaptureRecord;
import io.flowtrace.core.pcap.DecodeStatus;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.core.pcap.PacketDecoder;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** LongFlow's copies shift both edges of every SACK block, so a block is as wide as in the real capture. */
class LongFlowTest {

    @Test
    void everySackBlockOfTheCopiesIsAsWideAsTheWidestOfTheRealCapture(@TempDir Path tmp) throws Exception {
        Path real = TestData.file("tcp/cubic-loss.sender.pcap.gz");
        Path out = tmp.resolve("long.pcap");
        LongFlow.write(real, out, 30_000, false);
        long widest = widestSackBlock(real);
        assertThat(widest).isPositive().isLessThan(1L << 24);
        assertThat(widestSackBlock(out)).isEqualTo(widest);
    }

    /** The widest SACK block (right edge minus left, modulo 2^32) of a capture, as core's decoder reads it. */
    private static long widestSackBlock(Path capture) throws Exception {
        long widest = 0;
        try (InputStream in = Files.newInputStream(capture);
                CaptureReader reader = CaptureReader.open(in)) {
            CaptureRecord rec = new CaptureRecord();
            PacketDecoder decoder = new PacketDecoder();
            DecodedPacket p = new DecodedPacket();
            while (reader.next(rec)) {
                if (decoder.decode(rec, p) != DecodeStatus.TCP) {
                    continue;
                }
                for (int i = 0; i < p.sackCount; i++) {
                    widest = Math.max(widest, (p.sackRight[i] - p.sackLeft[i]) & 0xffffffffL);
                }
            }
        }
        return widest;
    }
}
