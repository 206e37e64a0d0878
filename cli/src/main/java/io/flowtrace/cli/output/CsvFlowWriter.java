package io.flowtrace.cli.output;

import io.flowtrace.core.net.FlowKey;
import io.flowtrace.core.tcp.TcpFlowAnalyzer;
import io.flowtrace.report.FlowField;
import io.flowtrace.report.FlowFields;
import io.flowtrace.report.FlowReport;
import io.flowtrace.report.ReportVisitor;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code analyze -o csv}: a header, then one row per flow, for the scripts tshark's
 * {@code -T fields -E separator=,} users write. The columns are the report catalogue's JSON paths
 * ({@code FlowFields}, docs/metrics.md), in its order, {@code c2s.}/{@code s2c.} before the direction
 * fields: the same names and values as {@code --json}, flattened. Lists (backoff gaps) are one cell,
 * values separated by spaces; a value with no samples is an empty cell (JSON's null); RFC 4180 quoting.
 */
public final class CsvFlowWriter {
    private CsvFlowWriter() {}

    /** The header line: "number" (the flow's number, as in the table), then the catalogue's paths. */
    public static String header() {
        List<String> names = new ArrayList<>();
        names.add("number");
        for (FlowField f : FlowFields.FLOW) {
            names.add(f.path());
        }
        for (FlowField.Side side : FlowField.Side.values()) {
            for (FlowField f : FlowFields.DIRECTION) {
                names.add(side.jsonName() + "." + f.path());
            }
        }
        return String.join(",", names);
    }

    /** The row of one flow without its number (the collector numbers it when it prints). */
    public static String row(FlowKey key, long instance, TcpFlowAnalyzer flow) {
        Cells cells = new Cells();
        FlowReport.visit(key, instance, flow, cells);
        return cells.row.toString();
    }

    private static final class Cells implements ReportVisitor {
        final StringBuilder row = new StringBuilder(512);

        private void cell(String value) {
            row.append(',');
            if (value.indexOf(',') >= 0 || value.indexOf('"') >= 0 || value.indexOf('\n') >= 0) {
                row.append('"').append(value.replace("\"", "\"\"")).append('"');
            } else {
                row.append(value);
            }
        }

        @Override
        public void beginObject(String name) {}

        @Override
        public void endObject() {}

        @Override
        public void string(String name, String value) {
            cell(value == null ? "" : value);
        }

        @Override
        public void integer(String name, long value) {
            row.append(',').append(value);
        }

        @Override
        public void absent(String name) {
            cell(""); // as a decimal without samples: an empty cell, null in the JSON
        }

        @Override
        public void decimal(String name, double value) {
            cell(Double.isNaN(value) ? "" : String.format(Locale.ROOT, "%.3f", value));
        }

        @Override
        public void bool(String name, boolean value) {
            row.append(',').append(value);
        }

        @Override
        public void integers(String name, long[] values, int count) {
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < count; i++) {
                b.append(i == 0 ? "" : " ").append(values[i]);
            }
            cell(b.toString());
        }
    }
}
