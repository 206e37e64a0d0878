package io.flowtrace.cli.output;

import io.flowtrace.core.net.FlowKey;
import io.flowtrace.core.tcp.TcpFlowAnalyzer;
import io.flowtrace.report.FlowReport;
import io.flowtrace.report.ReportVisitor;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code analyze -l}: the long report, in the spirit of {@code tcptrace -l}: a block per flow, a row
 * per metric with a plain label and human units, the client-to-server (c2s) and server-to-client
 * (s2c) values side by side, named as in the JSON. Walks the same {@link FlowReport} visit as the
 * JSON writer, so a field added there appears here too (labelled by its JSON name until it gets a
 * label in {@link ReportLabels}).
 */
public final class TextReportWriter implements ReportVisitor {
    private final List<String> path = new ArrayList<>();
    private final Map<String, String> header = new LinkedHashMap<>();
    private final Map<String, String[]> rows = new LinkedHashMap<>();

    /** The block of one flow, without its number (the caller numbers flows by first packet). */
    public String render(FlowKey key, long instance, TcpFlowAnalyzer flow) {
        header.clear();
        rows.clear();
        path.clear();
        FlowReport.visit(key, instance, flow, this);
        // Not in the JSON contract: the window-scale shift each side announced in its SYN (RFC 7323 §2.2).
        rows.put(
                "window scale announced (shift)",
                new String[] {scale(flow.windowScale(true)), scale(flow.windowScale(false))});
        StringBuilder b = new StringBuilder();
        b.append(String.format(
                Locale.ROOT,
                "%s - %s (vantage %s, instance %s)%s%n",
                header.get("flow.client"),
                header.get("flow.server"),
                header.get("flow.vantage"),
                header.get("flow.instance"),
                "true".equals(header.get("flow.client_guessed")) ? " [client guessed: no SYN seen]" : ""));
        long first = Long.parseLong(header.get("first_seen_us"));
        long last = Long.parseLong(header.get("last_seen_us"));
        b.append(String.format(
                Locale.ROOT,
                "   first packet: %s   last packet: %s   elapsed: %s   ended by: %s%n",
                Units.epochMicros(first),
                Units.epochMicros(last),
                Units.micros(last - first),
                header.get("end")));
        b.append(String.format(
                Locale.ROOT,
                "   setup (SYN to first data/ACK): %s   handshake RTT: %s   SYN retransmits: %s%s"
                        + "   SYN-ACK retransmits: %s%s%n",
                header.get("setup.setup_us"),
                header.get("setup.handshake_rtt_us"),
                header.get("setup.syn_retransmits"),
                gaps(header.get("setup.syn_retransmit_gaps_us")),
                header.get("setup.synack_retransmits"),
                gaps(header.get("setup.synack_retransmit_gaps_us"))));
        b.append(
                String.format(Locale.ROOT, "   %-40s %20s   %20s%n", "", "c2s (client>server)", "s2c (server>client)"));
        for (Map.Entry<String, String[]> r : rows.entrySet()) {
            String[] v = r.getValue();
            b.append(String.format(
                    Locale.ROOT,
                    "   %-40s %20s   %20s%n",
                    r.getKey() + ":",
                    v[0] == null ? "" : v[0],
                    v[1] == null ? "" : v[1]));
        }
        return b.toString();
    }

    private static String scale(int shift) {
        return shift < 0 ? "none" : Integer.toString(shift);
    }

    private static String gaps(String list) {
        return list == null || list.equals(Units.NONE) ? "" : " (gaps " + list + ")";
    }

    private void put(String name, String value) {
        String first = path.isEmpty() ? "" : path.get(0);
        boolean direction = first.equals("c2s") || first.equals("s2c");
        String key = String.join(".", path.subList(direction ? 1 : 0, path.size()));
        key = key.isEmpty() ? name : key + "." + name;
        if (!direction) {
            header.put(key, value);
            return;
        }
        rows.computeIfAbsent(ReportLabels.label(key), k -> new String[2])[first.equals("c2s") ? 0 : 1] = value;
    }

    private String currentKey(String name) {
        List<String> p =
                path.isEmpty() || !(path.get(0).equals("c2s") || path.get(0).equals("s2c"))
                        ? path
                        : path.subList(1, path.size());
        return p.isEmpty() ? name : String.join(".", p) + "." + name;
    }

    @Override
    public void beginObject(String name) {
        path.add(name);
    }

    @Override
    public void endObject() {
        path.remove(path.size() - 1);
    }

    @Override
    public void string(String name, String value) {
        put(name, value);
    }

    @Override
    public void integer(String name, long value) {
        String key = currentKey(name);
        if (key.equals("first_seen_us") || key.equals("last_seen_us") || key.equals("flow.instance")) {
            put(name, Long.toString(value));
        } else {
            put(name, ReportLabels.format(key, value));
        }
    }

    @Override
    public void decimal(String name, double value) {
        put(name, ReportLabels.format(currentKey(name), value));
    }

    @Override
    public void bool(String name, boolean value) {
        put(
                name,
                value
                        ? (name.equals("client_guessed") ? "true" : "yes")
                        : (name.equals("client_guessed") ? "false" : "no"));
    }

    @Override
    public void integers(String name, long[] values, int count) {
        if (count == 0) {
            put(name, Units.NONE);
            return;
        }
        String key = currentKey(name);
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < count; i++) {
            b.append(i == 0 ? "" : ", ").append(ReportLabels.format(key, values[i]));
        }
        put(name, b.toString());
    }
}
