package io.flowtrace.jobs.flow;

import io.flowtrace.core.tcp.RetransmissionClass;
import io.flowtrace.report.FlowField;
import io.flowtrace.report.FlowFields;
import io.flowtrace.report.FlowValues;

/**
 * What the service and vantage windows fold of one ended flow (the window's FlowWindowStats.add),
 * read once from the final version's values when it is emitted, typed: the inputs and derived
 * per-flow values of core's catalogue (FlowFields), as the windows read them from the flow's Avro
 * record before (the catalogue declares for each which statistic it feeds). The four window
 * combiners of the flow task add these instead of each walking Avro paths (AvroFlowValues was
 * 4.7-5.6 % of the task samples, docs/BENCHMARKS.md). A Flink POJO.
 */
public final class WindowInputs {
    public long synRetransmits;
    public long synackRetransmits;
    /** setup.setup_us; NaN when the handshake did not complete. */
    public double setupUs;
    /** Both directions summed (absent counts as 0). */
    public long packets;

    public long dataPackets;
    public long dataBytes;
    public long uniqueBytes;
    public long retransmittedPackets;
    /** Retransmissions by class, both directions, in {@link RetransmissionClass} order. */
    public long rto;

    public long fast;
    public long spurious;
    public long tlp;
    public long other;
    /** c2s's cwnd at slow-start exit, segments; NaN when that side did not leave slow start (or at 0). */
    public double c2sExitCwndSegments;
    /** s2c's, as {@link #c2sExitCwndSegments}. */
    public double s2cExitCwndSegments;
    /** c2s left slow start prematurely (only with an exit sample). */
    public boolean c2sPremature;

    public boolean s2cPremature;
    /** {@link FlowFields#flowRttUs}; NaN without samples. */
    public double rttUs;

    public WindowInputs() {}

    /** The inputs of a flow's final version, whatever holds its values. */
    public static WindowInputs of(FlowValues v) {
        WindowInputs w = new WindowInputs();
        w.synRetransmits = v.integer(FlowFields.SYN_RETRANSMITS, null);
        w.synackRetransmits = v.integer(FlowFields.SYNACK_RETRANSMITS, null);
        Number setup = v.number(FlowFields.SETUP_US, null);
        w.setupUs = setup == null ? Double.NaN : setup.doubleValue();
        w.packets = FlowFields.bothDirections(v, FlowFields.PACKETS);
        w.dataPackets = FlowFields.bothDirections(v, FlowFields.DATA_PACKETS);
        w.dataBytes = FlowFields.bothDirections(v, FlowFields.DATA_BYTES);
        w.uniqueBytes = FlowFields.bothDirections(v, FlowFields.UNIQUE_BYTES);
        w.retransmittedPackets = FlowFields.bothDirections(v, FlowFields.RETRANSMITTED_PACKETS);
        w.rto = retransmits(v, RetransmissionClass.RTO);
        w.fast = retransmits(v, RetransmissionClass.FAST);
        w.spurious = retransmits(v, RetransmissionClass.SPURIOUS);
        w.tlp = retransmits(v, RetransmissionClass.TLP);
        w.other = retransmits(v, RetransmissionClass.OTHER);
        w.c2sExitCwndSegments = exitCwnd(v, FlowField.Side.C2S);
        w.s2cExitCwndSegments = exitCwnd(v, FlowField.Side.S2C);
        w.c2sPremature = premature(v, FlowField.Side.C2S, w.c2sExitCwndSegments);
        w.s2cPremature = premature(v, FlowField.Side.S2C, w.s2cExitCwndSegments);
        Double rtt = FlowFields.flowRttUs(v);
        w.rttUs = rtt == null ? Double.NaN : rtt;
        return w;
    }

    private static long retransmits(FlowValues v, RetransmissionClass c) {
        return FlowFields.bothDirections(v, FlowFields.RETRANSMITS.get(c.ordinal()));
    }

    /** One sample per direction that left slow start: a cwnd above 0. */
    private static double exitCwnd(FlowValues v, FlowField.Side side) {
        Number exitCwnd = v.number(FlowFields.EXIT_CWND_SEGMENTS, side);
        return exitCwnd != null && exitCwnd.longValue() > 0 ? exitCwnd.doubleValue() : Double.NaN;
    }

    private static boolean premature(FlowValues v, FlowField.Side side, double exitCwnd) {
        return !Double.isNaN(exitCwnd) && Boolean.TRUE.equals(v.value(FlowFields.PREMATURE, side));
    }
}
