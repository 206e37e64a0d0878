package io.flowtrace.jobs.join;

/**
 * One flow instance joined with its conntrack entry: the row of {@code flow_conntrack}
 * (deploy/sql/V4__flow_conntrack.sql), upserted by the join whenever either side changes. Directions
 * are the flow's (c2s = client → server as the flow record names them); -1 / null means unknown.
 * A Flink POJO.
 */
public final class FlowConntrack {
    // The flow instance (flow_summary's key).
    public String vantage;
    public String client;
    public String server;
    public long instance;
    // The conntrack entry.
    public String ctVantage;
    public long ctId = -1;
    /** "original" when the capture saw the original tuple (pre-NAT side), "reply" when it saw the reply tuple (post-NAT side). */
    public String tupleSide;
    /** "none", "snat", "dnat" or "snat+dnat": which addresses or ports the kernel translated. */
    public String nat;
    /** The connection as its initiator addressed it (original tuple: src → dst). */
    public String preNatClient;

    public String preNatServer;
    /** The connection as the server side saw it (reply tuple reversed: reply dst → reply src). */
    public String postNatClient;

    public String postNatServer;
    public long ctStatus;
    public int ctTcpState = -1;
    public long ctStartNs = -1;
    public long ctStopNs = -1;
    public boolean ctDestroyed;
    /** Conntrack counters in the flow's directions (-1 until a DESTROY brought them). */
    public long ctC2sPackets = -1;

    public long ctC2sBytes = -1;
    public long ctS2cPackets = -1;
    public long ctS2cBytes = -1;
    /** Packets the capture saw (the flow record's c2s/s2c packets). */
    public long capturedC2sPackets;

    public long capturedS2cPackets;
    /**
     * Capture loss: conntrack's count minus the capture's, per direction; null until both the
     * conntrack counters (DESTROY) and the flow's final record are in. Negative: the capture saw
     * packets conntrack did not count (e.g. packets the kernel dropped as invalid before accounting).
     */
    public Long c2sMissingPackets;

    public Long s2cMissingPackets;
    public boolean flowFinal;
    /** Orders the versions of one row: max(flow record time, conntrack event time), microseconds. */
    public long joinTimeUs;

    public FlowConntrack() {}

    @Override
    public String toString() {
        return vantage + " " + client + " " + server + " " + instance + " ct " + ctId + " " + tupleSide + " nat " + nat
                + " " + preNatClient + ">" + preNatServer + " = " + postNatClient + ">" + postNatServer
                + " ct " + ctC2sPackets + "/" + ctS2cPackets + " captured " + capturedC2sPackets + "/"
                + capturedS2cPackets
                + " missing " + c2sMissingPackets + "/" + s2cMissingPackets;
    }
}
