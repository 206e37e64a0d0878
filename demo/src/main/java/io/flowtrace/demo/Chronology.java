package io.flowtrace.demo;

import io.flowtrace.core.pcap.CaptureFormatException;
import io.flowtrace.core.pcap.CaptureReader;
import io.flowtrace.core.pcap.CaptureRecord;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Captures in the order they were recorded. The job's event time is the capture time and its
 * watermarks are per Kafka partition, shared by all captures: a capture published after a later
 * one would arrive behind the watermark (late packets, and timers of its flows firing out of order),
 * which live agents never do. Replaying in recording order is what live agents would have sent.
 */
final class Chronology {
    private Chronology() {}

    static List<Capture> byFirstPacket(List<Capture> captures) throws IOException {
        List<long[]> keyed = new ArrayList<>();
        for (int i = 0; i < captures.size(); i++) {
            keyed.add(new long[] {firstPacketNanos(captures.get(i)), i});
        }
        keyed.sort(Comparator.<long[]>comparingLong(k -> k[0]).thenComparingLong(k -> k[1]));
        List<Capture> out = new ArrayList<>();
        for (long[] k : keyed) {
            out.add(captures.get((int) k[1]));
        }
        return out;
    }

    private static long firstPacketNanos(Capture c) throws IOException {
        try (InputStream in = Files.newInputStream(c.file());
                CaptureReader reader = CaptureReader.open(in)) {
            CaptureRecord rec = new CaptureRecord();
            return reader.next(rec) ? rec.timestampNanos : Long.MAX_VALUE;
        } catch (CaptureFormatException e) {
            throw new IllegalArgumentException(c.file() + ": not a pcap or pcapng capture: " + e.getMessage(), e);
        }
    }
}
