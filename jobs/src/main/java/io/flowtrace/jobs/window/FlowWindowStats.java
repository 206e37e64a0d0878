package io.flowtrace.jobs.window;

import io.flowtrace.avro.DirectionStats;
import io.flowtrace.avro.FlowRecord;
import io.flowtrace.avro.RetransmitCounts;
import io.flowtrace.jobs.flow.FlowSummary;

/**
 * The running totals of one window over the flows that ended in it, shared by the per-service and
 * per-vantage windows. Per-flow inputs come from the FlowRecord contract only. A Flink POJO.
 */
public final class FlowWindowStats {
    public String agentId;
    public String interfaceName;
    public String service;
    public long flows;
    public long completedHandshakes;
    public long synRetransmits;
    public long synackRetransmits;
    public long packets;
    public long latePackets;
    public long dataPackets;
    public long dataBytes;
    public long uniqueBytes;
    public long retransmittedPackets;
    public long rto;
    public long fast;
    public long spurious;
    public long tlp;
    public long other;
    /** Setup time per flow with a completed handshake, microseconds. */
    public Reservoir setupUs;
    /** Per-flow average data RTT (the client's data when it has samples, else the server's), microseconds. */
    public Reservoir rttUs;
    /** cwnd at slow-start exit, segments, one sample per direction that left slow start. */
    public Reservoir exitCwndSegments;
    /** Of those exits, how many were premature (docs/design.md, "Premature exits"). */
    public long prematureExits;

    public FlowWindowStats() {
    }

    FlowWindowStats(int reservoirSize) {
        setupUs = new Reservoir(reservoirSize);
        rttUs = new Reservoir(reservoirSize);
        exitCwndSegments = new Reservoir(reservoirSize);
    }

    void add(FlowSummary summary) {
        FlowRecord r = summary.record;
        if (agentId == null) {
            agentId = r.getFlow().getVantage().getAgentId();
            interfaceName = r.getFlow().getVantage().getInterfaceName();
            service = r.getFlow().getServer();
        }
        flows++;
        latePackets += summary.latePackets;
        synRetransmits += r.getSetup().getSynRetransmits();
        synackRetransmits += r.getSetup().getSynackRetransmits();
        if (r.getSetup().getSetupUs() != null) {
            completedHandshakes++;
            setupUs.add(r.getSetup().getSetupUs());
        }
        addDirection(r.getC2s());
        addDirection(r.getS2c());
        Double rtt = r.getC2s().getRttUs().getAvg() != null ? r.getC2s().getRttUs().getAvg() : r.getS2c().getRttUs().getAvg();
        if (rtt != null) {
            rttUs.add(rtt);
        }
    }

    private void addDirection(DirectionStats d) {
        packets += d.getPackets();
        dataPackets += d.getDataPackets();
        dataBytes += d.getDataBytes();
        uniqueBytes += d.getUniqueBytes();
        retransmittedPackets += d.getRetransmittedPackets();
        RetransmitCounts c = d.getRetransmits();
        rto += c.getRto();
        fast += c.getFast();
        spurious += c.getSpurious();
        tlp += c.getTlp();
        other += c.getOther();
        Integer exitCwnd = d.getSlowStart().getExitCwndSegments();
        if (exitCwnd != null && exitCwnd > 0) {
            exitCwndSegments.add(exitCwnd);
            if (Boolean.TRUE.equals(d.getSlowStart().getPremature())) {
                prematureExits++;
            }
        }
    }

    void merge(FlowWindowStats o) {
        if (agentId == null) {
            agentId = o.agentId;
            interfaceName = o.interfaceName;
            service = o.service;
        }
        flows += o.flows;
        completedHandshakes += o.completedHandshakes;
        synRetransmits += o.synRetransmits;
        synackRetransmits += o.synackRetransmits;
        packets += o.packets;
        latePackets += o.latePackets;
        dataPackets += o.dataPackets;
        dataBytes += o.dataBytes;
        uniqueBytes += o.uniqueBytes;
        retransmittedPackets += o.retransmittedPackets;
        rto += o.rto;
        fast += o.fast;
        spurious += o.spurious;
        tlp += o.tlp;
        other += o.other;
        setupUs.merge(o.setupUs);
        rttUs.merge(o.rttUs);
        exitCwndSegments.merge(o.exitCwndSegments);
        prematureExits += o.prematureExits;
    }

    /** Premature exits over exits; null without exits. */
    Double prematureShare() {
        long exits = exitCwndSegments.count;
        return exits == 0 ? null : (double) prematureExits / exits;
    }

    /** Distinct payload bits of the window's flows over the window's length. */
    double throughputBps(long windowSizeMs) {
        return uniqueBytes * 8.0 * 1000.0 / windowSizeMs;
    }

    /** Retransmitted over data packets; null without data. */
    Double retransmitRate() {
        return dataPackets == 0 ? null : (double) retransmittedPackets / dataPackets;
    }
}
