package io.flowtrace.jobs.flow;

import io.flowtrace.avro.FlowRecord;

/**
 * One version of a flow instance's summary, as the flow function emits it: the Avro contract,
 * the {@code analyze --json} object for the PostgreSQL report column (both from the same
 * FlowReport walk), and what only the job knows. A Flink POJO (public fields, no-arg constructor).
 */
public final class FlowSummary {
    public FlowRecord record;
    /**
     * Exactly the flow's line of {@code flowtrace analyze --json}; null when no output of the job
     * reads it (FlowAnalysisFunction's reportJson: only the PostgreSQL report column does).
     */
    public String reportJson;
    /** Packets that arrived behind the watermark; analysed all the same (Kafka order within a flow). */
    public long latePackets;
    /** True for the last version: the flow ended (closed and lingered, idle, replaced, or end of input). */
    public boolean finalRecord;

    public FlowSummary() {}

    public FlowSummary(FlowRecord record, String reportJson, long latePackets, boolean finalRecord) {
        this.record = record;
        this.reportJson = reportJson;
        this.latePackets = latePackets;
        this.finalRecord = finalRecord;
    }

    @Override
    public String toString() {
        return (finalRecord ? "final " : "update ") + (reportJson != null ? reportJson : record);
    }
}
