package io.flowtrace.bench;

import io.flowtrace.core.pcap.CaptureFormatException;
import io.flowtrace.core.pcap.CaptureReader;
import io.flowtrace.core.pcap.CaptureRecord;
import io.flowtrace.core.pcap.LinkType;
import io.flowtrace.core.pcap.PcapWriter;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Makes a large benchmark capture from a small real one: {@code copies} back-to-back copies of an
 * Ethernet/IPv4 capture, copy k with both addresses' second octet set to k mod 256 and their first
 * octet raised by k / 256 (so every copy is a distinct set of flows, and the two ends of a connection
 * keep their distinct addresses) and its timestamps shifted past the previous copy. Checksums are
 * left as they are: none of the compared tools verifies them by default.
 *
 * <p>{@code java -cp bench/target/flowtrace-bench.jar io.flowtrace.bench.ScaleUp IN OUT COPIES}
 */
public final class ScaleUp {
    private ScaleUp() {}

    public static void main(String[] args) throws IOException, CaptureFormatException {
        if (args.length != 3) {
            System.err.println("usage: ScaleUp IN.pcap[.gz] OUT.pcap COPIES");
            System.exit(2);
        }
        Path in = Path.of(args[0]);
        int copies = Integer.parseInt(args[2]);
        long span = span(in) + 1_000_000_000L;
        long written = 0;
        try (OutputStream os = new BufferedOutputStream(Files.newOutputStream(Path.of(args[1])), 1 << 20);
                PcapWriter out = new PcapWriter(os, LinkType.ETHERNET, 262_144)) {
            for (int k = 0; k < copies; k++) {
                try (InputStream is = Files.newInputStream(in);
                        CaptureReader r = CaptureReader.open(is)) {
                    CaptureRecord rec = new CaptureRecord();
                    while (r.next(rec)) {
                        if (rec.linkType != LinkType.ETHERNET) {
                            throw new IOException(
                                    "ScaleUp handles Ethernet captures only, got link type " + rec.linkType);
                        }
                        byte[] d = rec.data;
                        int o = rec.dataOffset;
                        boolean ipv4 = rec.capturedLength >= 34
                                && (d[o + 12] & 0xff) == 0x08
                                && d[o + 13] == 0
                                && (d[o + 14] & 0xf0) == 0x40;
                        if (ipv4) {
                            for (int a : new int[] {o + 14 + 12, o + 14 + 16}) { // source, destination address
                                d[a] = (byte) (d[a] + (k >> 8));
                                d[a + 1] = (byte) k;
                            }
                        }
                        out.write(rec.timestampNanos + k * span, d, o, rec.capturedLength, rec.wireLength);
                        written++;
                    }
                }
            }
        }
        System.err.printf(Locale.ROOT, "ScaleUp: %d copies of %s, %,d packets -> %s%n", copies, in, written, args[1]);
    }

    private static long span(Path in) throws IOException, CaptureFormatException {
        long first = -1;
        long last = 0;
        try (InputStream is = Files.newInputStream(in);
                CaptureReader r = CaptureReader.open(is)) {
            CaptureRecord rec = new CaptureRecord();
            while (r.next(rec)) {
                if (first < 0) {
                    first = rec.timestampNanos;
                }
                last = Math.max(last, rec.timestampNanos);
            }
        }
        return Math.max(0, last - first);
    }
}
