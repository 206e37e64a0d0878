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
 * When the capture's flows come from more than one interface (a pcapng of several), each interface is
 * a vantage of its own and a connection seen on two of them is two rows: an {@code interface} column
 * after the number then says which row is from which interface ({@link InterfaceColumn} decides).
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

    /**
     * A numbered row: its number, start offset in seconds, the interface it was seen on (the vantage's
     * interface name) and {@link #cells} output.
     */
    public record Row(long number, double startSeconds, String iface, String[] cells) {}

    /**
     * Prints the table; {@code byInterface} adds the {@code interface} column (the capture's flows came
     * from more than one interface), without it the table is as it always was.
     */
    public static void print(List<Row> rows, boolean byInterface, PrintStream out) {
        if (rows.isEmpty()) {
            return;
        }
        int extra = byInterface ? 1 : 0;
        String[] header = withInterface(HEADER, "interface", byInterface);
        String[][] table = new String[rows.size()][];
        for (int i = 0; i < rows.size(); i++) {
            Row r = rows.get(i);
            String[] line = new String[HEADER.length];
            line[0] = Long.toString(r.number());
            line[1] = r.cells()[0];
            line[2] = String.format(Locale.ROOT, "%.6f", r.startSeconds());
            System.arraycopy(r.cells(), 1, line, 3, r.cells().length - 1);
            table[i] = withInterface(line, r.iface(), byInterface);
        }
        int[] width = new int[header.length];
        for (int c = 0; c < header.length; c++) {
            width[c] = header[c].length();
            for (String[] line : table) {
                width[c] = Math.max(width[c], line[c].length());
            }
        }
        out.println(line(header, width, extra));
        for (String[] line : table) {
            out.println(line(line, width, extra));
        }
        out.println(
                "(start: seconds after the capture's first connection; data: unique payload bytes; rexmit: retransmitted "
                        + "packets; RTT: average data-to-ACK time of that direction's data; c2s: client to server, s2c: server to "
                        + "client; ? after the server: no SYN seen, client guessed; "
                        + (byInterface
                                ? "interface: the capture interface the row was seen on (ifN: pcapng interface N); "
                                : "")
                        + "-l: every figure)");
    }

    /** The cells with {@code iface} inserted after the number, when {@code byInterface}. */
    private static String[] withInterface(String[] cells, String iface, boolean byInterface) {
        if (!byInterface) {
            return cells;
        }
        String[] with = new String[cells.length + 1];
        with[0] = cells[0];
        with[1] = iface;
        System.arraycopy(cells, 1, with, 2, cells.length - 1);
        return with;
    }

    /** One line; column {@code c} is aligned as {@link #LEFT}[c - extra] says (the interface column: left). */
    private static String line(String[] cells, int[] width, int extra) {
        StringBuilder b = new StringBuilder();
        for (int c = 0; c < cells.length; c++) {
            if (c > 0) {
                b.append("  ");
            }
            String pad = " ".repeat(width[c] - cells[c].length());
            boolean left = c == extra && extra == 1 || LEFT[c < 1 + extra ? c : c - extra];
            b.append(left ? cells[c] + (c == cells.length - 1 ? "" : pad) : pad + cells[c]);
        }
        return b.toString();
    }
}
