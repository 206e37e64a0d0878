package io.flowtrace.core.openvpn;

import io.flowtrace.core.testing.TestData;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;

/** The committed captures of scripts/openvpn-capture.sh and their tshark decode (testdata/openvpn/README.md). */
final class OpenVpnCaptures {
    static final String[] CASES = {"push-1k", "push-100k"};

    /** One line of CASE.SIDE.tshark.tsv.gz: tshark's openvpn dissector fields of one frame. */
    record TsharkRow(
            long frame,
            long timeUs,
            String src,
            int srcPort,
            int opcode,
            String sessionId,
            int ackCount,
            long[] ackIds,
            String remoteSessionId,
            long mpid,
            /** tshark's tcp.analysis.retransmission (proto tcp captures only). */
            boolean tcpRetransmission,
            /** The tls-auth / tls-crypt replay packet-id (openvpn.pid), new on every packet sent; -1 if none. */
            long replayId) {}

    /** The first of tshark's comma-separated occurrences (a TCP segment may hold several packets). */
    private static String first(String field) {
        int comma = field.indexOf(',');
        return comma < 0 ? field : field.substring(0, comma);
    }

    private OpenVpnCaptures() {}

    static Path file(String name) {
        return TestData.file("openvpn/" + name);
    }

    static InputStream pcap(String name) throws IOException {
        return new GZIPInputStream(Files.newInputStream(file(name)));
    }

    static List<String> gzLines(String name) throws IOException {
        List<String> lines = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(
                new InputStreamReader(new GZIPInputStream(Files.newInputStream(file(name))), StandardCharsets.UTF_8))) {
            for (String l; (l = r.readLine()) != null; ) {
                lines.add(l);
            }
        }
        return lines;
    }

    static List<TsharkRow> tshark(String name) throws IOException {
        List<TsharkRow> rows = new ArrayList<>();
        for (String l : gzLines(name)) {
            String[] f = l.split("\t", -1);
            String[] acks = f[7].isEmpty() ? new String[0] : f[7].split(",");
            long[] ids = new long[acks.length];
            for (int i = 0; i < acks.length; i++) {
                ids[i] = Long.parseLong(acks[i]);
            }
            rows.add(new TsharkRow(
                    Long.parseLong(f[0]),
                    micros(f[1]),
                    f[2],
                    f[3].isEmpty() ? -1 : Integer.parseInt(f[3]),
                    f[4].isEmpty() ? -1 : Integer.decode(first(f[4])),
                    hexSid(first(f[5])),
                    f[6].isEmpty() ? 0 : Integer.parseInt(first(f[6])),
                    ids,
                    hexSid(first(f[8])),
                    f[9].isEmpty() ? -1 : Long.parseLong(first(f[9])),
                    f.length > 12 && !f[12].isEmpty(),
                    f.length > 10 && !f[10].isEmpty() ? Long.parseLong(first(f[10])) : -1));
        }
        return rows;
    }

    /** "1796118421.960903000" → µs, exactly (no floating point). */
    static long micros(String epoch) {
        int dot = epoch.indexOf('.');
        String frac = (epoch.substring(dot + 1) + "000000").substring(0, 6);
        return Long.parseLong(epoch.substring(0, dot)) * 1_000_000 + Long.parseLong(frac);
    }

    /** tshark prints session ids as unsigned decimals; flowtrace as 16 hex digits. */
    private static String hexSid(String decimal) {
        return decimal.isEmpty() ? null : String.format("%016x", Long.parseUnsignedLong(decimal));
    }

    /** The µs timestamp of a machine-readable-output log line ("1796118421.926622 1 ..."). */
    static long logMicros(String line) {
        return micros(line.substring(0, line.indexOf(' ')));
    }
}
