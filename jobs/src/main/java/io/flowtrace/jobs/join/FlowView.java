package io.flowtrace.jobs.join;

import io.flowtrace.jobs.flow.FlowSummary;

/**
 * What the join needs of the latest version of one flow instance's record (FlowRecord's values, as the
 * flow function emitted them). A Flink POJO.
 */
public final class FlowView {
    public String agentId;
    public String vantage;
    public String client;
    public String server;
    public long instance;
    public long firstSeenUs;
    public long lastSeenUs;
    public long c2sPackets;
    public long s2cPackets;
    public long recordTimeUs;
    public boolean finalRecord;

    public FlowView() {}

    /** What the join needs of a version the flow function emitted. */
    public static FlowView of(FlowSummary s) {
        FlowView v = new FlowView();
        v.agentId = s.agentId;
        v.vantage = s.vantage;
        v.client = s.client;
        v.server = s.server;
        v.instance = s.instance;
        v.firstSeenUs = s.firstSeenUs;
        v.lastSeenUs = s.lastSeenUs;
        v.c2sPackets = s.c2sPackets;
        v.s2cPackets = s.s2cPackets;
        v.recordTimeUs = s.recordTimeUs;
        v.finalRecord = s.finalRecord;
        return v;
    }

    /** The instance's identity within one join key (two vantages of one agent may share a key). */
    public String instanceId() {
        return vantage + " " + client + " " + server + " " + instance;
    }

    @Override
    public String toString() {
        return instanceId() + (finalRecord ? " final" : "") + " packets " + c2sPackets + "/" + s2cPackets;
    }
}
