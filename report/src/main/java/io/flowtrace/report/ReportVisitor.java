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

    /**
     * A nullable integer field without a value this time (its computation gave a negative number: an
     * MSS never announced, no slow-start exit). The JSON report and the CSV leave it empty (null, as a
     * decimal without samples), as the Avro contract and the PostgreSQL columns do; a visitor that does
     * not say otherwise gets -1.
     */
    default void absent(String name) {
        integer(name, -1);
    }

    /** An optional string, null when absent. */
    default void nullableString(String name, String value) {
        string(name, value);
    }
}
