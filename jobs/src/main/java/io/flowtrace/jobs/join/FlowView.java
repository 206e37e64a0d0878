package io.flowtrace.jobs.join;

import io.flowtrace.avro.FlowRecord;
import io.flowtrace.avro.mapping.PacketEvents;

/**
 * What the join needs of the latest version of one flow instance's record. A Flink POJO.
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

    public static FlowView of(FlowRecord r, boolean finalRecord) {
        FlowView v = new FlowView();
        v.agentId = r.getFlow().getVantage().getAgentId();
        v.vantage = PacketEvents.vantage(r.getFlow().getVantage());
        v.client = r.getFlow().getClient();
        v.server = r.getFlow().getServer();
        v.instance = r.getFlow().getInstance();
        v.firstSeenUs = r.getFirstSeenUs();
        v.lastSeenUs = r.getLastSeenUs();
        v.c2sPackets = r.getC2s().getPackets();
        v.s2cPackets = r.getS2c().getPackets();
        v.recordTimeUs = r.getRecordTimeUs();
        v.finalRecord = finalRecord;
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
