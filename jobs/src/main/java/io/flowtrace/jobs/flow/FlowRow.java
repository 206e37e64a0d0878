package io.flowtrace.jobs.flow;

/**
 * One row of PostgreSQL's {@code flow_summary} as the flow function builds it, only for a version
 * the output policy writes ({@link io.flowtrace.report.FlowRowPolicy}): the catalogue's column
 * values, typed, taken from the same walk of the analyser as the Avro record ({@link FlowRowWriter}),
 * in the slots {@link FlowRowLayout} assigns; then the columns only the job knows and the {@code
 * report} JSON. Only these rows cross to the JDBC writer's task, not the Avro record (docs/job.md,
 * "Flow rows in PostgreSQL"). A Flink POJO of primitive and String arrays: no Kryo.
 */
public final class FlowRow {
    /** TEXT columns; null is SQL NULL. */
    public String[] texts;
    /** BIGINT, INTEGER and TIMESTAMPTZ (µs since the epoch) columns; see {@link #nullIntegers}. */
    public long[] integers;
    /** Per {@link #integers} slot: SQL NULL. */
    public boolean[] nullIntegers;
    /** DOUBLE PRECISION columns; NaN is SQL NULL. */
    public double[] decimals;
    /** BOOLEAN columns. */
    public boolean[] flags;
    /** Packets that arrived behind the watermark (FlowSummary#latePackets). */
    public long latePackets;
    /** Event time of this version (the Avro record's record_time_us). */
    public long recordTimeUs;
    /** The last version of the flow instance. */
    public boolean finalRecord;
    /**
     * Exactly the flow's line of {@code flowtrace analyze --json}; null (SQL NULL) in the close-time
     * row of a flow that closed before its first periodic update under {@code --flow-rows all},
     * whose final row fills it.
     */
    public String reportJson;

    public FlowRow() {}

    @Override
    public String toString() {
        return (finalRecord ? "final row " : "row ") + reportJson;
    }
}
