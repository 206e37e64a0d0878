package io.flowtrace.jobs.flow;

import io.flowtrace.report.ReportVisitor;

/**
 * Fills a {@link FlowRow}'s column slots from one walk of the analyser, alongside the Avro record
 * and the JSON text (FlowRecords.version): each value lands in the slot {@link FlowRowLayout} gives
 * its walk position. The values are the ones the Avro record holds, so the row is the one the job
 * wrote when it read the columns from the record: a NaN or infinite decimal is NULL (0 in a column
 * that is not nullable), a negative integer of a nullable field is NULL, a sum of both directions
 * counts an absent side as 0, a decimal the contract holds as a whole number is rounded
 * (FlowRowTest compares the two on captures). One writer per row.
 */
public final class FlowRowWriter implements ReportVisitor {
    private final FlowRowLayout layout;
    private final FlowRow row = new FlowRow();
    private int position;

    public FlowRowWriter(FlowRowLayout layout) {
        this.layout = layout;
        row.texts = new String[layout.size(FlowRowLayout.Kind.TEXT)];
        row.integers = new long[layout.size(FlowRowLayout.Kind.INTEGER)];
        row.nullIntegers = new boolean[row.integers.length];
        row.decimals = new double[layout.size(FlowRowLayout.Kind.DECIMAL)];
        row.flags = new boolean[layout.size(FlowRowLayout.Kind.FLAG)];
    }

    /** The row, once the walk is over, with what only the job knows. */
    public FlowRow row(String reportJson, long latePackets, long recordTimeUs, boolean finalRecord) {
        if (position != layout.positions()) {
            throw new IllegalStateException(
                    "the walk gave " + position + " values, the layout expects " + layout.positions());
        }
        row.reportJson = reportJson;
        row.latePackets = latePackets;
        row.recordTimeUs = recordTimeUs;
        row.finalRecord = finalRecord;
        return row;
    }

    @Override
    public void beginObject(String name) {}

    @Override
    public void endObject() {}

    @Override
    public void string(String name, String value) {
        FlowRowLayout.Target t = layout.at(position++);
        if (t != null) {
            row.texts[t.slot()] = value;
        }
    }

    @Override
    public void integer(String name, long value) {
        FlowRowLayout.Target t = layout.at(position++);
        if (t == null) {
            return;
        }
        boolean absent = value < 0 && t.field().nullable();
        if (t.kind() == FlowRowLayout.Kind.DECIMAL) {
            row.decimals[t.slot()] = absent ? Double.NaN : value;
        } else if (t.sum()) {
            row.integers[t.slot()] += absent ? 0 : value;
        } else {
            row.integers[t.slot()] = value;
            row.nullIntegers[t.slot()] = absent;
        }
    }

    @Override
    public void absent(String name) {
        integer(name, -1);
    }

    @Override
    public void decimal(String name, double value) {
        FlowRowLayout.Target t = layout.at(position++);
        if (t != null) {
            boolean none = Double.isNaN(value) || Double.isInfinite(value);
            double v = t.round() ? Math.round(value) : value;
            row.decimals[t.slot()] = !none ? v : t.field().nullable() ? Double.NaN : 0.0;
        }
    }

    @Override
    public void bool(String name, boolean value) {
        FlowRowLayout.Target t = layout.at(position++);
        if (t != null) {
            row.flags[t.slot()] = value;
        }
    }

    @Override
    public void integers(String name, long[] values, int count) {
        position++; // no column holds a list (FlowRowLayout refuses one)
    }
}
