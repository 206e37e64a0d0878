package io.flowtrace.cli.output;

import io.flowtrace.core.tcp.TcpDirectionStats;
import io.flowtrace.core.tcp.TcpFlowAnalyzer;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/**
 * The default text report: one line per connection, like {@code tcptrace} without {@code -l} or
 * {@code tshark -z conv,tcp}: number (by first packet), endpoints, start relative to the first
 * connection shown, elapsed time, and per direction packets, unique data, retransmitted packets and
 * average RTT, then setup time and how it ended. {@code -l} gives every figure ({@link TextReportWriter}).
 */
public final class ConnectionTable {
    private static final String[] HEADER = {
        "#",
        "client - server",
        "start",
        "elapsed",
        "pkts c2s",
        "pkts s2c",
        "data c2s",
        "data s2c",
        "rexmit c2s",
        "rexmit s2c",
        "RTT c2s",
        "RTT s2c",
        "setup",
        "end"
    };
    /** Columns printed left-aligned (the rest are numbers, right-aligned). */
    private static final boolean[] LEFT = {
        false, true, false, false, false, false, false, false, false, false, false, false, false, true
    };

    private ConnectionTable() {}

    /** The cells of one flow from "client - server" on; number and start are added when printing. */
    public static String[] cells(TcpFlowAnalyzer f) {
        TcpDirectionStats c = f.clientToServer();
        TcpDirectionStats s = f.serverToClient();
        return new String[] {
            f.client() + " - " + f.server() + (f.clientGuessed() ? " ?" : ""),
            Units.nanos(f.lastSeenNanos() - f.firstSeenNanos()),
            Units.count(c.packets),
            Units.count(s.packets),
            Units.bytes(c.uniqueBytes),
            Units.bytes(s.uniqueBytes),
            Units.count(c.retransmittedPackets),
            Units.count(s.retransmittedPackets),
            rtt(c),
            rtt(s),
            Units.nanos(f.setup().setupNanos),
            f.end().jsonName()
        };
    }

    private static String rtt(TcpDirectionStats d) {
        return d.rtt.count() == 0 ? Units.NONE : Units.micros(d.rtt.mean() / 1000.0);
    }

    /** A numbered row: its number, start offset in seconds and {@link #cells} output. */
    public record Row(long number, double startSeconds, String[] cells) {}

    public static void print(List<Row> rows, PrintStream out) {
        if (rows.isEmpty()) {
            return;
        }
        String[][] table = new String[rows.size()][];
        for (int i = 0; i < rows.size(); i++) {
            Row r = rows.get(i);
            String[] line = new String[HEADER.length];
            line[0] = Long.toString(r.number());
            line[1] = r.cells()[0];
            line[2] = String.format(Locale.ROOT, "%.6f", r.startSeconds());
            System.arraycopy(r.cells(), 1, line, 3, r.cells().length - 1);
            table[i] = line;
        }
        int[] width = new int[HEADER.length];
        for (int c = 0; c < HEADER.length; c++) {
            width[c] = HEADER[c].length();
            for (String[] line : table) {
                width[c] = Math.max(width[c], line[c].length());
            }
        }
        out.println(line(HEADER, width));
        for (String[] line : table) {
            out.println(line(line, width));
        }
        out.println(
                "(start: seconds after the capture's first connection; data: unique payload bytes; rexmit: retransmitted "
                        + "packets; RTT: average data-to-ACK time of that direction's data; c2s: client to server, s2c: server to "
                        + "client; ? after the server: no SYN seen, client guessed; -l: every figure)");
    }

    private static String line(String[] cells, int[] width) {
        StringBuilder b = new StringBuilder();
        for (int c = 0; c < cells.length; c++) {
            if (c > 0) {
                b.append("  ");
            }
            String pad = " ".repeat(width[c] - cells[c].length());
            b.append(LEFT[c] ? cells[c] + (c == cells.length - 1 ? "" : pad) : pad + cells[c]);
        }
        return b.toString();
    }
}
