package io.flowtrace.core.testing;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One TCP connection as tshark decoded it (the CASE.*.tshark.tsv.gz files next to the captures),
 * by client endpoint: the rows of each direction, with raw sequence numbers made relative here.
 * Expected values computed from these are independent of flowtrace: they read tshark's fields.
 */
public final class WireFlow {
    public final String client;
    public final String server;
    /** Every row of the connection in capture order. */
    public final List<Map<String, String>> rows = new ArrayList<>();

    private WireFlow(String client, String server) {
        this.client = client;
        this.server = server;
    }

    /**
     * Connections of a TSV by client endpoint ("ip:port", "[v6]:port" as tshark prints the address);
     * the client sent the first SYN.
     */
    public static Map<String, WireFlow> read(Path tsv) throws IOException {
        Map<String, WireFlow> byTuple = new LinkedHashMap<>();
        Map<String, WireFlow> byClient = new LinkedHashMap<>();
        for (Map<String, String> row : Tsv.read(tsv)) {
            if (row.get("tcp.flags").isEmpty()
                    || (row.get("ip.src").isEmpty() && row.get("ipv6.src").isEmpty())) {
                continue; // not TCP (ARP, ICMPv6 ...)
            }
            String src = source(row);
            String dst = destination(row);
            String tuple = src.compareTo(dst) < 0 ? src + ">" + dst : dst + ">" + src;
            WireFlow f = byTuple.get(tuple);
            if (f == null) {
                if (!isSyn(row)) {
                    continue; // the capture began mid-connection: not one of the measured flows
                }
                f = new WireFlow(src, dst);
                byTuple.put(tuple, f);
                byClient.putIfAbsent(src, f);
            }
            f.rows.add(row);
        }
        return byClient;
    }

    public boolean fromClient(Map<String, String> row) {
        return source(row).equals(client);
    }

    private static String source(Map<String, String> row) {
        String v4 = row.get("ip.src");
        return (v4.isEmpty() ? "[" + row.get("ipv6.src") + "]" : v4) + ":" + row.get("tcp.srcport");
    }

    private static String destination(Map<String, String> row) {
        String v4 = row.get("ip.dst");
        return (v4.isEmpty() ? "[" + row.get("ipv6.dst") + "]" : v4) + ":" + row.get("tcp.dstport");
    }

    public static double time(Map<String, String> row) {
        return Double.parseDouble(row.get("frame.time_epoch"));
    }

    public static int flags(Map<String, String> row) {
        return Integer.decode(row.get("tcp.flags"));
    }

    public static int len(Map<String, String> row) {
        String v = row.get("tcp.len");
        return v == null || v.isEmpty() ? 0 : Integer.parseInt(v);
    }

    public static boolean isSyn(Map<String, String> row) {
        return (flags(row) & 0x12) == 0x02;
    }

    public static boolean isSynAck(Map<String, String> row) {
        return (flags(row) & 0x12) == 0x12;
    }

    public static boolean flagged(Map<String, String> row, String analysisFlag) {
        String v = row.get("tcp.analysis." + analysisFlag);
        return v != null && !v.isEmpty();
    }

    /** The client's ISN (raw), from its first SYN. */
    public long clientIsn() {
        return Long.parseLong(rows.get(0).get("tcp.seq_raw"));
    }

    /** A raw 32-bit client sequence or ACK number relative to the client's ISN. */
    public long relative(String raw) {
        return (Long.parseLong(raw) - clientIsn()) & 0xffffffffL;
    }

    /**
     * The most client data packets outstanding on the wire (segments sent, by sequence start, whose
     * end is above the highest cumulative ACK from the server; no SACK) after any client data segment
     * sent strictly before {@code untilEpoch}. The kernel's cwnd counts packets, and a message's last
     * segment is usually shorter than the MSS: bytes / MSS would miss it.
     */
    public long maxPacketsOutstandingBefore(double untilEpoch) {
        java.util.TreeMap<Long, Long> sent = new java.util.TreeMap<>();
        long acked = 1;
        long max = 0;
        for (Map<String, String> r : rows) {
            if (time(r) >= untilEpoch) {
                break;
            }
            if (fromClient(r)) {
                if (len(r) > 0) {
                    long start = relative(r.get("tcp.seq_raw"));
                    sent.merge(start, start + len(r), Math::max);
                    final long cumulative = acked;
                    sent.values().removeIf(end -> end <= cumulative);
                    max = Math.max(max, sent.size());
                }
            } else if ((flags(r) & 0x10) != 0 && !isSynAck(r)) {
                acked = Math.max(acked, relative(r.get("tcp.ack_raw")));
            }
        }
        return max;
    }
}
