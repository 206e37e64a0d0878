package io.flowtrace.report;

/**
 * Hands every field of one {@link FlowReport} walk to two visitors in turn: the job builds a
 * version's Avro record and its {@code analyze --json} text from one walk of the analyser instead of
 * two (the walk was 17 % of the job's task threads on short connections, docs/BENCHMARKS.md "Smoke
 * profiles of the flow function's emission"). Each visitor sees exactly the calls it would see alone.
 */
public record TeeVisitor(ReportVisitor first, ReportVisitor second) implements ReportVisitor {
    @Override
    public void beginObject(String name) {
        first.beginObject(name);
        second.beginObject(name);
    }

    @Override
    public void endObject() {
        first.endObject();
        second.endObject();
    }

    @Override
    public void string(String name, String value) {
        first.string(name, value);
        second.string(name, value);
    }

    @Override
    public void nullableString(String name, String value) {
        first.nullableString(name, value);
        second.nullableString(name, value);
    }

    @Override
    public void integer(String name, long value) {
        first.integer(name, value);
        second.integer(name, value);
    }

    @Override
    public void absent(String name) {
        first.absent(name);
        second.absent(name);
    }

    @Override
    public void decimal(String name, double value) {
        first.decimal(name, value);
        second.decimal(name, value);
    }

    @Override
    public void bool(String name, boolean value) {
        first.bool(name, value);
        second.bool(name, value);
    }

    @Override
    public void integers(String name, long[] values, int count) {
        first.integers(name, values, count);
        second.integers(name, values, count);
    }
}
