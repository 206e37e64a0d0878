package io.flowtrace.cli.output;

import static io.flowtrace.report.FlowField.Side.C2S;
import static io.flowtrace.report.FlowField.Side.S2C;

import io.flowtrace.core.net.FlowKey;
import io.flowtrace.core.tcp.TcpFlowAnalyzer;
import io.flowtrace.report.FlowFields;
import io.flowtrace.report.FlowReport;
import io.flowtrace.report.FlowValues;
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

    /**
     * The cells of one flow from "client - server" on; number and start are added when printing. Each
     * cell is a catalogue field (FlowFields) but elapsed: last packet - first packet to the nanosecond.
     */
    public static String[] cells(FlowKey key, long instance, TcpFlowAnalyzer f) {
        FlowValues v = FlowReport.values(key, instance, f);
        return new String[] {
            v.value(FlowFields.CLIENT, null) + " - " + v.value(FlowFields.SERVER, null)
                    + (Boolean.TRUE.equals(v.value(FlowFields.CLIENT_GUESSED, null)) ? " ?" : ""),
            Units.nanos(f.lastSeenNanos() - f.firstSeenNanos()),
            Units.count(v.integer(FlowFields.PACKETS, C2S)),
            Units.count(v.integer(FlowFields.PACKETS, S2C)),
            Units.bytes(v.integer(FlowFields.UNIQUE_BYTES, C2S)),
            Units.bytes(v.integer(FlowFields.UNIQUE_BYTES, S2C)),
            Units.count(v.integer(FlowFields.RETRANSMITTED_PACKETS, C2S)),
            Units.count(v.integer(FlowFields.RETRANSMITTED_PACKETS, S2C)),
            micros(v.number(FlowFields.RTT_AVG_US, C2S)),
            micros(v.number(FlowFields.RTT_AVG_US, S2C)),
            micros(v.number(FlowFields.SETUP_US, null)),
            (String) v.value(FlowFields.END, null)
        };
    }

    private static String micros(Number us) {
        return us == null ? Units.NONE : Units.micros(us.doubleValue());
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
