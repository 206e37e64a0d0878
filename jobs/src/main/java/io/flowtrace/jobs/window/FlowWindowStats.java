package io.flowtrace.jobs.window;

import io.flowtrace.avro.FlowRecord;
import io.flowtrace.avro.mapping.AvroFlowValues;
import io.flowtrace.core.tcp.RetransmissionClass;
import io.flowtrace.jobs.flow.FlowSummary;
import io.flowtrace.report.FlowField;
import io.flowtrace.report.FlowFields;
import io.flowtrace.report.FlowValues;

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
     * Folds in one ended flow. The inputs and the derived per-flow values (the RTT sample, the sum of
     * both directions) are core's catalogue fields (FlowFields), read from the flow's Avro record;
     * the catalogue declares for each field which statistic here it feeds.
     */
    void add(FlowSummary summary) {
        FlowRecord r = summary.record;
        if (agentId == null) {
            agentId = r.getFlow().getVantage().getAgentId();
            interfaceName = r.getFlow().getVantage().getInterfaceName();
            service = r.getFlow().getServer();
        }
        FlowValues v = new AvroFlowValues(r);
        flows++;
        latePackets += summary.latePackets;
        synRetransmits += v.integer(FlowFields.SYN_RETRANSMITS, null);
        synackRetransmits += v.integer(FlowFields.SYNACK_RETRANSMITS, null);
        Number setup = v.number(FlowFields.SETUP_US, null);
        if (setup != null) {
            completedHandshakes++;
            setupUs.add(setup.doubleValue());
        }
        packets += FlowFields.bothDirections(v, FlowFields.PACKETS);
        dataPackets += FlowFields.bothDirections(v, FlowFields.DATA_PACKETS);
        dataBytes += FlowFields.bothDirections(v, FlowFields.DATA_BYTES);
        uniqueBytes += FlowFields.bothDirections(v, FlowFields.UNIQUE_BYTES);
        retransmittedPackets += FlowFields.bothDirections(v, FlowFields.RETRANSMITTED_PACKETS);
        rto += FlowFields.bothDirections(v, FlowFields.RETRANSMITS.get(RetransmissionClass.RTO.ordinal()));
        fast += FlowFields.bothDirections(v, FlowFields.RETRANSMITS.get(RetransmissionClass.FAST.ordinal()));
        spurious += FlowFields.bothDirections(v, FlowFields.RETRANSMITS.get(RetransmissionClass.SPURIOUS.ordinal()));
        tlp += FlowFields.bothDirections(v, FlowFields.RETRANSMITS.get(RetransmissionClass.TLP.ordinal()));
        other += FlowFields.bothDirections(v, FlowFields.RETRANSMITS.get(RetransmissionClass.OTHER.ordinal()));
        for (FlowField.Side side : FlowField.Side.values()) {
            addSlowStartExit(v, side);
        }
        Double rtt = FlowFields.flowRttUs(v);
        if (rtt != null) {
            rttUs.add(rtt);
        }
    }

    /** One sample per direction that left slow start, and whether the exit was premature. */
    private void addSlowStartExit(FlowValues v, FlowField.Side side) {
        Number exitCwnd = v.number(FlowFields.EXIT_CWND_SEGMENTS, side);
        if (exitCwnd != null && exitCwnd.longValue() > 0) {
            exitCwndSegments.add(exitCwnd.doubleValue());
            if (Boolean.TRUE.equals(v.value(FlowFields.PREMATURE, side))) {
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
