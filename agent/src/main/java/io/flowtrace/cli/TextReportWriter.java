package io.flowtrace.cli;

import io.flowtrace.core.report.ReportVisitor;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The human report, in the spirit of {@code tcptrace -l -r}: one block per flow, a row per
 * metric, the client→server (a2b) and server→client (b2a) values side by side.
 */
public final class TextReportWriter implements ReportVisitor {
    private final PrintStream out;
    private final List<String> path = new ArrayList<>();
    private final Map<String, String> header = new LinkedHashMap<>();
    private final Map<String, String[]> rows = new LinkedHashMap<>();
    private int flowNumber;

    public TextReportWriter(PrintStream out) {
        this.out = out;
    }

    public void beginFlow() {
        header.clear();
        rows.clear();
        path.clear();
    }

    public void endFlow() {
        flowNumber++;
        out.printf("%d: %s - %s (%s), instance %s%s%n", flowNumber, header.get("flow.client"), header.get("flow.server"),
                header.get("flow.vantage"), header.get("flow.instance"),
                "true".equals(header.get("flow.client_guessed")) ? " [client guessed: no SYN seen]" : "");
        out.printf("   end: %s   setup: %s us   handshake rtt: %s us   syn retransmits: %s %s   synack retransmits: %s%n",
                header.get("end"), header.get("setup.setup_us"), header.get("setup.handshake_rtt_us"),
                header.get("setup.syn_retransmits"), header.get("setup.syn_retransmit_gaps_us"),
                header.get("setup.synack_retransmits"));
        out.printf("   %-34s %18s   %18s%n", "", "a2b (client>server)", "b2a (server>client)");
        for (Map.Entry<String, String[]> r : rows.entrySet()) {
            String[] v = r.getValue();
            out.printf("   %-34s %18s   %18s%n", r.getKey() + ":", v[0] == null ? "" : v[0], v[1] == null ? "" : v[1]);
        }
        out.println();
    }

    private void put(String name, String value) {
        String first = path.isEmpty() ? "" : path.get(0);
        boolean direction = first.equals("c2s") || first.equals("s2c");
        if (!direction) {
            String key = String.join(".", path);
            header.put(key.isEmpty() ? name : key + "." + name, value);
            return;
        }
        String rest = String.join(" ", path.subList(1, path.size()));
        String label = (rest.isEmpty() ? "" : rest + " ") + name.replace('_', ' ');
        rows.computeIfAbsent(label, k -> new String[2])[first.equals("c2s") ? 0 : 1] = value;
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
        put(name, Long.toString(value));
    }

    @Override
    public void decimal(String name, double value) {
        put(name, Double.isNaN(value) ? "-" : String.format("%.1f", value));
    }

    @Override
    public void bool(String name, boolean value) {
        put(name, Boolean.toString(value));
    }

    @Override
    public void integers(String name, long[] values, int count) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < count; i++) {
            b.append(i == 0 ? "" : ",").append(values[i]);
        }
        put(name, b.append(']').toString());
    }
}
