package io.flowtrace.cli.capture;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.core.pcap.CaptureReader;
import io.flowtrace.core.pcap.CaptureRecord;
import io.flowtrace.core.testing.TestData;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;

/**
 * The replay bar's position and its "frames read" agree: at every read the reader has counted
 * the frames of the bytes read before it (at most two missing: the one being assembled and the
 * one the reader holds while it looks at the next header), and the total is the capture's own size. Record ends come from walking the pcap
 * record headers here, not from the reader.
 */
class CaptureBytesTest {
    private static final Path CAPTURE = TestData.file("tcp/cubic-loss.sender.pcap.gz");

    @Test
    void framesCountedAtEachReadAreThoseOfTheBytesBeforeIt() throws Exception {
        byte[] pcap;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(CAPTURE))) {
            pcap = in.readAllBytes();
        }
        List<Long> recordEnds = recordEnds(pcap);
        assertThat(CaptureBytes.size(CAPTURE)).as("ISIZE = the pcap's length").isEqualTo(pcap.length);

        long[] frames = {0};
        List<long[]> atReads = new ArrayList<>();
        try (InputStream in = CaptureBytes.open(CAPTURE, consumed -> atReads.add(new long[] {consumed, frames[0]}));
                CaptureReader reader = CaptureReader.open(in)) {
            CaptureRecord record = new CaptureRecord();
            while (reader.next(record)) {
                frames[0]++;
            }
        }
        assertThat(frames[0]).isEqualTo(recordEnds.size());
        assertThat(atReads).hasSizeGreaterThan(3);
        for (long[] at : atReads) {
            long consumed = at[0];
            long whole = recordEnds.stream().filter(end -> end <= consumed).count();
            assertThat(at[1])
                    .as(
                            "frames counted when %,d of %,d bytes were read (%d whole records in them)",
                            consumed, pcap.length, whole)
                    .isBetween(Math.max(0, whole - 2), whole);
        }
    }

    @Test
    void anUncompressedCaptureIsItsFileSize() throws Exception {
        Path plain = TestData.file("decoding/tcp4-truncated.pcap");
        assertThat(CaptureBytes.size(plain)).isEqualTo(Files.size(plain));
    }

    /** Byte offset after each whole record: 24-byte global header, 16-byte record headers (incl_len at +8). */
    private static List<Long> recordEnds(byte[] pcap) {
        ByteBuffer b = ByteBuffer.wrap(pcap).order(ByteOrder.LITTLE_ENDIAN);
        List<Long> ends = new ArrayList<>();
        for (int at = 24; at + 16 <= pcap.length; ) {
            int incl = b.getInt(at + 8);
            if (at + 16 + incl > pcap.length) {
                break;
            }
            at += 16 + incl;
            ends.add((long) at);
        }
        return ends;
    }
}
