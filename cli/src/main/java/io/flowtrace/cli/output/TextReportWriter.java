package io.flowtrace.cli.output;

import static io.flowtrace.report.FlowField.Side.C2S;
import static io.flowtrace.report.FlowField.Side.S2C;

import io.flowtrace.core.net.FlowKey;
import io.flowtrace.core.tcp.TcpFlowAnalyzer;
import io.flowtrace.report.FlowField;
import io.flowtrace.report.FlowFields;
import io.flowtrace.report.FlowReport;
import io.flowtrace.report.FlowValues;
import java.util.Locale;

/**
 * {@code analyze -l}: the long report, in the spirit of {@code tcptrace -l}: a block per flow, a row
 * per metric with a plain label and human units, the client-to-server (c2s) and server-to-client
 * (s2c) values side by side. The rows are the catalogue's direction fields in report order
 * ({@link FlowFields#DIRECTION}), each under its entry's label and shown in its entry's unit, so a
 * field added there appears here too (FlowFieldsTest: every direction field has a label).
 */
public final class TextReportWriter {

    /** The block of one flow, without its number (the caller numbers flows by first packet). */
    public String render(FlowKey key, long instance, TcpFlowAnalyzer flow) {
        FlowValues v = FlowReport.values(key, instance, flow);
        StringBuilder b = new StringBuilder();
        b.append(String.format(
                Locale.ROOT,
                "%s - %s (vantage %s, instance %s)%s%n",
                v.value(FlowFields.CLIENT, null),
                v.value(FlowFields.SERVER, null),
                v.value(FlowFields.VANTAGE, null),
                v.value(FlowFields.INSTANCE, null),
                Boolean.TRUE.equals(v.value(FlowFields.CLIENT_GUESSED, null)) ? " [client guessed: no SYN seen]" : ""));
        long first = v.integer(FlowFields.FIRST_SEEN, null);
        long last = v.integer(FlowFields.LAST_SEEN, null);
        b.append(String.format(
                Locale.ROOT,
                "   first packet: %s   last packet: %s   elapsed: %s   ended by: %s%n",
                Units.epochMicros(first),
                Units.epochMicros(last),
                Units.micros(last - first),
                v.value(FlowFields.END, null)));
        b.append(String.format(
                Locale.ROOT,
                "   setup (SYN to first data/ACK): %s   handshake RTT: %s   SYN retransmits: %s%s"
                        + "   SYN-ACK retransmits: %s%s%n",
                shown(v, FlowFields.SETUP_US, null),
                shown(v, FlowFields.HANDSHAKE_RTT_US, null),
                shown(v, FlowFields.SYN_RETRANSMITS, null),
                gaps(shown(v, FlowFields.SYN_RETRANSMIT_GAPS, null)),
                shown(v, FlowFields.SYNACK_RETRANSMITS, null),
                gaps(shown(v, FlowFields.SYNACK_RETRANSMIT_GAPS, null))));
        b.append(
                String.format(Locale.ROOT, "   %-40s %20s   %20s%n", "", "c2s (client>server)", "s2c (server>client)"));
        for (FlowField f : FlowFields.DIRECTION) {
            row(b, f.label(), shown(v, f, C2S), shown(v, f, S2C));
        }
        // Not in the JSON contract: the window-scale shift each side announced in its SYN (RFC 7323 §2.2).
        row(b, "window scale announced (shift)", scale(flow.windowScale(true)), scale(flow.windowScale(false)));
        return b.toString();
    }

    private static void row(StringBuilder b, String label, String c2s, String s2c) {
        b.append(String.format(Locale.ROOT, "   %-40s %20s   %20s%n", label + ":", c2s, s2c));
    }

    private static String scale(int shift) {
        return shift < 0 ? "none" : Integer.toString(shift);
    }

    private static String gaps(String list) {
        return list.equals(Units.NONE) ? "" : " (gaps " + list + ")";
    }

    /** The value of {@code f} in human units chosen by the entry's unit; "-" when absent or negative. */
    static String shown(FlowValues v, FlowField f, FlowField.Side side) {
        Object value = v.value(f, side);
        if (value == null) {
            return Units.NONE;
        }
        if (value instanceof String s) {
            return s;
        }
        if (value instanceof Boolean yes) {
            return yes ? "yes" : "no";
        }
        if (value instanceof long[] list) {
            if (list.length == 0) {
                return Units.NONE;
            }
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < list.length; i++) {
                b.append(i == 0 ? "" : ", ").append(integer(f, list[i]));
            }
            return b.toString();
        }
        if (value instanceof Double d) {
            return decimal(f, d);
        }
        return integer(f, ((Number) value).longValue());
    }

    private static String integer(FlowField f, long value) {
        if (value < 0) {
            return Units.NONE;
        }
        return switch (f.unit()) {
            case "µs" -> Units.micros(value);
            case "bytes" -> size(f) ? Units.bytes(value) : Units.count(value);
            default -> Units.count(value);
        };
    }

    private static String decimal(FlowField f, double value) {
        if (Double.isNaN(value) || value < 0) {
            return Units.NONE;
        }
        return switch (f.unit()) {
            case "µs" -> Units.micros(value);
            case "bit/s" -> Units.bitRate(value);
            case "bytes" -> Units.bytes(Math.round(value));
            default -> Units.significant(value);
        };
    }

    /**
     * A size in bytes is shown in kB/MB, except an MSS: it is read as an exact number (1448, 1460,
     * compared with the path's MTU), so it is shown whole, and its label says it is in bytes.
     */
    private static boolean size(FlowField f) {
        return !f.name().equals("mss");
    }
}
