package io.flowtrace.core.testing;

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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Makes one long TCP flow from a short real one (docs/design.md, "tcptrace's quadratic IsRTO", at any length): the handshake,
 * then the data phase repeated back to back until {@code PACKETS} packets, then the close. Copy k
 * has every sequence and acknowledgment number (SACK blocks included), TCP timestamp value and echo,
 * IPv4 id and capture time advanced by k times the data phase's own span in that direction, so the
 * copies join into one continuous connection with the original's loss pattern repeated. All
 * sequence numbers are offset so that they wrap past 2^32 in the middle of the file.
 * Only the capture's biggest Ethernet/IPv4 connection is used. {@code --one-direction} keeps only the data sender's packets (a tap on one link), where tcptrace's
 * segment list is never pruned by ACKs. Checksums are left as they are: none of the compared tools
 * verifies them by default.
 *
 * <p>Shared by the benchmarks (bench's {@code LongFlow} main: {@code java -cp bench/target/flowtrace-bench.jar
 * io.flowtrace.bench.LongFlow IN OUT PACKETS [--one-direction]}) and the tests that need a long real flow.
 */
public final class LongFlow {
    private static final int ETH = 14;
    private static final long MOD = 1L << 32;

    private LongFlow() {}

    /** One captured frame, copied out of the reader. */
    private record Frame(long timeNanos, byte[] data, int wireLength) {
        int ip() {
            return ETH;
        }

        int tcp() {
            return ETH + (data[ETH] & 0x0f) * 4;
        }

        int flags() {
            return data[tcp() + 13] & 0xff;
        }

        boolean fromClient(int clientAddress) {
            return u32(data, ETH + 12) == (clientAddress & 0xffffffffL);
        }

        int payload() {
            int ipTotal = (int) u16(data, ETH + 2);
            return ipTotal - (data[ETH] & 0x0f) * 4 - ((data[tcp() + 12] & 0xf0) >> 2);
        }
    }

    public static void main(String[] args) throws IOException, CaptureFormatException {
        if (args.length < 3 || args.length > 4 || (args.length == 4 && !args[3].equals("--one-direction"))) {
            System.err.println("usage: LongFlow IN.pcap[.gz] OUT.pcap PACKETS [--one-direction]");
            System.exit(2);
        }
        long written = write(Path.of(args[0]), Path.of(args[1]), Long.parseLong(args[2]), args.length == 4);
        System.err.printf(
                "LongFlow: %s -> %s, %,d packets%s%n",
                args[0], args[1], written, args.length == 4 ? " (data direction only)" : "");
    }

    /** Writes the long flow; returns the number of packets written. */
    public static long write(Path in, Path out, long packets, boolean oneDirection)
            throws IOException, CaptureFormatException {
        List<Frame> frames = read(in);
        int[] phases = phases(in, frames);
        int synIndex = phases[0];
        int bodyStart = phases[1];
        int bodyEnd = phases[2];
        int client = (int) u32(frames.get(synIndex).data(), ETH + 12);
        List<Frame> head = frames.subList(synIndex, bodyStart);
        List<Frame> body = frames.subList(bodyStart, bodyEnd);
        List<Frame> tail = frames.subList(bodyEnd, frames.size());

        // Per direction (0 = client → server, 1 = server → client): how far one copy advances.
        long[] seqSpan = new long[2];
        long[] tsSpan = new long[2];
        int[] idSpan = new int[2];
        long[] bytes = new long[2];
        long[] firstSeq = {-1, -1};
        long[] firstTs = {-1, -1};
        int[] firstId = {-1, -1};
        for (Frame f : body) {
            int d = f.fromClient(client) ? 0 : 1;
            long seq = u32(f.data(), f.tcp() + 4);
            if (firstSeq[d] < 0) {
                firstSeq[d] = seq;
                firstId[d] = (int) u16(f.data(), ETH + 4);
            }
            seqSpan[d] = Math.max(seqSpan[d], (seq - firstSeq[d] + MOD) % MOD + f.payload());
            idSpan[d] = Math.max(idSpan[d], (int) ((u16(f.data(), ETH + 4) - firstId[d] + 65536) % 65536) + 1);
            bytes[d] += f.payload();
            long ts = tsValue(f);
            if (ts >= 0) {
                if (firstTs[d] < 0) {
                    firstTs[d] = ts;
                }
                tsSpan[d] = Math.max(tsSpan[d], (ts - firstTs[d] + MOD) % MOD + 1);
            }
        }
        int sender = bytes[0] >= bytes[1] ? 0 : 1;
        long timeSpan = body.get(body.size() - 1).timeNanos()
                - body.get(0).timeNanos()
                + (body.get(1).timeNanos() - body.get(0).timeNanos());
        int perCopy = oneDirection ? count(body, client, sender) : body.size();
        int fixed =
                oneDirection ? count(head, client, sender) + count(tail, client, sender) : head.size() + tail.size();
        long copies = Math.max(1, (packets - fixed + perCopy - 1) / perCopy);
        long[] base = wrappingBases(firstSeq, seqSpan, copies);

        long written = 0;
        try (OutputStream os = new BufferedOutputStream(Files.newOutputStream(out), 1 << 20);
                PcapWriter w = new PcapWriter(os, LinkType.ETHERNET, 262_144)) {
            written += emit(w, head, 0, client, sender, oneDirection, base, seqSpan, tsSpan, idSpan, timeSpan);
            for (long k = 0; k < copies; k++) {
                written += emit(w, body, k, client, sender, oneDirection, base, seqSpan, tsSpan, idSpan, timeSpan);
            }
            written += emit(w, tail, copies - 1, client, sender, oneDirection, base, seqSpan, tsSpan, idSpan, timeSpan);
        }
        return written;
    }

    /**
     * Where the connection's phases start: {the SYN, the first data-phase packet (the first after the
     * SYN without SYN set), the first FIN or RST (the close; the end of the frames if none)}.
     */
    private static int[] phases(Path in, List<Frame> frames) throws IOException {
        int synIndex = -1;
        for (int i = 0; i < frames.size() && synIndex < 0; i++) {
            if ((frames.get(i).flags() & 0x12) == 0x02) {
                synIndex = i;
            }
        }
        if (synIndex < 0) {
            throw new IOException(in + ": no SYN: LongFlow needs a capture of one whole connection");
        }
        int bodyStart = -1;
        int bodyEnd = frames.size();
        for (int i = synIndex; i < frames.size(); i++) {
            int f = frames.get(i).flags();
            if ((f & 0x05) != 0) { // FIN or RST: the close starts here
                bodyEnd = i;
                break;
            }
            if (bodyStart < 0 && (f & 0x02) == 0) {
                bodyStart = i;
            }
        }
        if (bodyStart < 0 || bodyEnd - bodyStart < 2) {
            throw new IOException(in + ": no data phase between the handshake and the close");
        }
        return new int[] {synIndex, bodyStart, bodyEnd};
    }

    /** Per direction, the sequence offset that makes the numbers wrap in the middle of the flow. */
    private static long[] wrappingBases(long[] firstSeq, long[] seqSpan, long copies) {
        long[] base = new long[2];
        for (int d = 0; d < 2; d++) {
            base[d] = (MOD - (firstSeq[d] + seqSpan[d] * copies / 2) % MOD) % MOD;
        }
        return base;
    }

    private static long emit(
            PcapWriter w,
            List<Frame> frames,
            long k,
            int client,
            int sender,
            boolean oneDirection,
            long[] base,
            long[] seqSpan,
            long[] tsSpan,
            int[] idSpan,
            long timeSpan)
            throws IOException {
        long n = 0;
        for (Frame f : frames) {
            int d = f.fromClient(client) ? 0 : 1;
            if (oneDirection && d != sender) {
                continue;
            }
            byte[] p = Arrays.copyOf(f.data(), f.data().length);
            int tcp = f.tcp();
            boolean syn = (f.flags() & 0x02) != 0;
            boolean ack = (f.flags() & 0x10) != 0;
            put32(p, tcp + 4, u32(p, tcp + 4) + base[d] + k * seqSpan[d]);
            if (ack) {
                put32(p, tcp + 8, u32(p, tcp + 8) + base[1 - d] + k * seqSpan[1 - d]);
            }
            put16(p, ETH + 4, (u16(p, ETH + 4) + k * idSpan[d]) % 65536);
            shiftOptions(p, tcp, d, k, base, seqSpan, tsSpan, syn);
            w.write(f.timeNanos() + k * timeSpan, p, 0, p.length, f.wireLength());
            n++;
        }
        return n;
    }

    /** SACK blocks (the peer's sequence space) and timestamps (value ours, echo the peer's). */
    private static void shiftOptions(
            byte[] p, int tcp, int d, long k, long[] base, long[] seqSpan, long[] tsSpan, boolean syn) {
        int end = Math.min(p.length, tcp + ((p[tcp + 12] & 0xf0) >> 2));
        int o = tcp + 20;
        while (o < end) {
            int kind = p[o] & 0xff;
            if (kind == 0) {
                return;
            }
            if (kind == 1) {
                o++;
                continue;
            }
            if (o + 1 >= end) {
                return;
            }
            int len = p[o + 1] & 0xff;
            if (len < 2 || o + len > end) {
                return;
            }
            if (kind == 5) {
                for (int b = o + 2; b + 4 <= o + len; b += 4) { // every edge: left and right of each block
                    put32(p, b, u32(p, b) + base[1 - d] + k * seqSpan[1 - d]);
                }
            } else if (kind == 8 && len == 10) {
                put32(p, o + 2, u32(p, o + 2) + k * tsSpan[d]);
                if (!syn || u32(p, o + 6) != 0) {
                    put32(p, o + 6, u32(p, o + 6) + k * tsSpan[1 - d]);
                }
            }
            o += len;
        }
    }

    private static long tsValue(Frame f) {
        byte[] p = f.data();
        int tcp = f.tcp();
        int end = Math.min(p.length, tcp + ((p[tcp + 12] & 0xf0) >> 2));
        for (int o = tcp + 20; o < end; ) {
            int kind = p[o] & 0xff;
            if (kind == 0) {
                break;
            }
            if (kind == 1) {
                o++;
                continue;
            }
            int len = o + 1 < end ? p[o + 1] & 0xff : 0;
            if (len < 2 || o + len > end) {
                break;
            }
            if (kind == 8 && len == 10) {
                return u32(p, o + 2);
            }
            o += len;
        }
        return -1;
    }

    private static int count(List<Frame> frames, int client, int sender) {
        int n = 0;
        for (Frame f : frames) {
            if ((f.fromClient(client) ? 0 : 1) == sender) {
                n++;
            }
        }
        return n;
    }

    /** The frames of the capture's biggest connection (e.g. iperf3's data connection, not its control one). */
    private static List<Frame> read(Path in) throws IOException, CaptureFormatException {
        java.util.Map<Long, List<Frame>> flows = new java.util.HashMap<>();
        try (InputStream is = Files.newInputStream(in);
                CaptureReader r = CaptureReader.open(is)) {
            CaptureRecord rec = new CaptureRecord();
            while (r.next(rec)) {
                byte[] d = Arrays.copyOfRange(rec.data, rec.dataOffset, rec.dataOffset + rec.capturedLength);
                boolean tcp4 = rec.linkType == LinkType.ETHERNET
                        && d.length >= ETH + 40
                        && (d[12] & 0xff) == 0x08
                        && d[13] == 0
                        && (d[ETH] & 0xf0) == 0x40
                        && d[ETH + 9] == 6;
                if (!tcp4) {
                    continue; // ARP, IPv6 neighbour discovery: not part of the flow
                }
                Frame f = new Frame(rec.timestampNanos, d, rec.wireLength);
                long key = (u32(d, ETH + 12) ^ u32(d, ETH + 16)) << 16 ^ (u16(d, f.tcp()) ^ u16(d, f.tcp() + 2));
                flows.computeIfAbsent(key, x -> new ArrayList<>()).add(f);
            }
        }
        return flows.values().stream()
                .max(java.util.Comparator.comparingInt(List::size))
                .orElseThrow(() -> new IOException(in + ": no Ethernet/IPv4 TCP connection"));
    }

    private static long u32(byte[] b, int o) {
        return ((b[o] & 0xffL) << 24) | ((b[o + 1] & 0xffL) << 16) | ((b[o + 2] & 0xffL) << 8) | (b[o + 3] & 0xffL);
    }

    private static long u16(byte[] b, int o) {
        return ((b[o] & 0xff) << 8) | (b[o + 1] & 0xff);
    }

    private static void put32(byte[] b, int o, long v) {
        b[o] = (byte) (v >>> 24);
        b[o + 1] = (byte) (v >>> 16);
        b[o + 2] = (byte) (v >>> 8);
        b[o + 3] = (byte) v;
    }

    private static void put16(byte[] b, int o, long v) {
        b[o] = (byte) (v >>> 8);
        b[o + 1] = (byte) v;
    }
}
