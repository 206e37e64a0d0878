package io.flowtrace.jobs.flow;

import io.flowtrace.avro.FlowRecord;

/**
 * One version of a flow instance's summary, as the flow function emits it to the Kafka flows topic,
 * the windows and the conntrack join: the Avro contract and what only the job knows. The PostgreSQL
 * row and its report JSON are a side output of their own ({@link FlowRow}), built only for the
 * versions the output policy writes. A Flink POJO (public fields, no-arg constructor).
 */
public final class FlowSummary {
    public FlowRecord record;
    /** Packets that arrived behind the watermark; analysed all the same (Kafka order within a flow). */
    public long latePackets;
    /** True for the last version: the flow ended (closed and lingered, idle, replaced, or end of input). */
    public boolean finalRecord;

    public FlowSummary() {}

    public FlowSummary(FlowRecord record, long latePackets, boolean finalRecord) {
        this.record = record;
        this.latePackets = latePackets;
        this.finalRecord = finalRecord;
    }

    @Override
    public String toString() {
        return (finalRecord ? "final " : "update ") + record;
    }
}
