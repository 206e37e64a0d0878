package io.flowtrace.jobs.window;

import io.flowtrace.jobs.flow.FlowSummary;
import io.flowtrace.jobs.flow.WindowInputs;
import io.flowtrace.report.FlowFields;

/**
 * The running totals of one window over the flows that ended in it, shared by the per-service and
 * per-vantage windows. Per-flow inputs are the FlowRecord contract's values ({@link WindowInputs}). A Flink POJO.
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
    /** Per-flow data RTT ({@link FlowFields#flowRttUs}), microseconds. */
    public Reservoir rttUs;
    /** cwnd at slow-start exit, segments, one sample per direction that left slow start. */
    public Reservoir exitCwndSegments;
    /** Of those exits, how many were premature (docs/design.md, "Premature exits"). */
    public long prematureExits;

    public FlowWindowStats() {}

    FlowWindowStats(int reservoirSize) {
        setupUs = new Reservoir(reservoirSize);
        rttUs = new Reservoir(reservoirSize);
        exitCwndSegments = new Reservoir(reservoirSize);
    }

    /**
     * Folds in one ended flow: its {@link WindowInputs}, the catalogue fields (FlowFields) and
     * derived per-flow values (the RTT sample, the sum of both directions) the flow function read
     * once from the final version; the catalogue declares for each field which statistic here it
     * feeds.
     */
    void add(FlowSummary summary) {
        WindowInputs w = summary.window;
        if (w == null) {
            throw new IllegalStateException("only a flow's final version carries the window inputs: " + summary);
        }
        if (agentId == null) {
            agentId = summary.agentId;
            interfaceName = summary.interfaceName;
            service = summary.server;
        }
        flows++;
        latePackets += summary.latePackets;
        synRetransmits += w.synRetransmits;
        synackRetransmits += w.synackRetransmits;
        if (!Double.isNaN(w.setupUs)) {
            completedHandshakes++;
            setupUs.add(w.setupUs);
        }
        packets += w.packets;
        dataPackets += w.dataPackets;
        dataBytes += w.dataBytes;
        uniqueBytes += w.uniqueBytes;
        retransmittedPackets += w.retransmittedPackets;
        rto += w.rto;
        fast += w.fast;
        spurious += w.spurious;
        tlp += w.tlp;
        other += w.other;
        addSlowStartExit(w.c2sExitCwndSegments, w.c2sPremature);
        addSlowStartExit(w.s2cExitCwndSegments, w.s2cPremature);
        if (!Double.isNaN(w.rttUs)) {
            rttUs.add(w.rttUs);
        }
    }

    /** One sample per direction that left slow start, and whether the exit was premature. */
    private void addSlowStartExit(double exitCwnd, boolean premature) {
        if (!Double.isNaN(exitCwnd)) {
            exitCwndSegments.add(exitCwnd);
            if (premature) {
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
