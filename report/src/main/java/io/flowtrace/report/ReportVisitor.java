package io.flowtrace.report;

/**
 * Receives a flow's fields in contract order (docs/metrics.md). Objects nest: every
 * {@link #beginObject} is closed by an {@link #endObject}. The JSON writer, the Avro mapping of
 * the Flink job and the PostgreSQL export all walk the same visit, so the field names exist once.
 */
public interface ReportVisitor {
    void beginObject(String name);

    void endObject();

    void string(String name, String value);

    void integer(String name, long value);

    /** A measured value; NaN when there were no samples (written as null). */
    void decimal(String name, double value);

    void bool(String name, boolean value);

    void integers(String name, long[] values, int count);

    /** An optional string, null when absent. */
    default void nullableString(String name, String value) {
        string(name, value);
    }
}
