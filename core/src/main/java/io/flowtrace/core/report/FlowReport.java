package io.flowtrace.core.report;

import io.flowtrace.core.net.FlowKey;
import io.flowtrace.core.tcp.RetransmissionClass;
import io.flowtrace.core.tcp.RunningStats;
import io.flowtrace.core.tcp.SetupStats;
import io.flowtrace.core.tcp.SlowStartStats;
import io.flowtrace.core.tcp.TcpDirectionStats;
import io.flowtrace.core.tcp.TcpFlowAnalyzer;

/**
 * The {@code analyze --json} contract for one flow instance, as a walk over its fields. Times are
 * microseconds (epoch for instants); RTTs are microseconds with nanosecond precision.
 */
public final class FlowReport {
    private FlowReport() {
    }

    public static void visit(FlowKey key, long instance, TcpFlowAnalyzer flow, ReportVisitor v) {
        v.beginObject("flow");
        v.string("client", flow.client().toString());
        v.string("server", flow.server().toString());
        v.string("vantage", key.vantage().toString());
        v.integer("instance", instance);
        v.bool("client_guessed", flow.clientGuessed());
        v.endObject();
        v.integer("first_seen_us", micros(flow.firstSeenNanos()));
        v.integer("last_seen_us", micros(flow.lastSeenNanos()));
        v.string("end", flow.end().jsonName());
        visitSetup(flow.setup(), v);
        long origin = flow.setup().firstSynNanos >= 0 ? flow.setup().firstSynNanos : flow.firstSeenNanos();
        v.beginObject("c2s");
        visitDirection(flow.clientToServer(), flow.lastSeenNanos(), v);
        visitSlowStart(flow.slowStart(true), flow.senderMss(true), origin, flow.clientToServer(), v);
        v.endObject();
        v.beginObject("s2c");
        visitDirection(flow.serverToClient(), flow.lastSeenNanos(), v);
        visitSlowStart(flow.slowStart(false), flow.senderMss(false), origin, flow.serverToClient(), v);
        v.endObject();
    }

    private static void visitSetup(SetupStats s, ReportVisitor v) {
        v.beginObject("setup");
        v.integer("syn_retransmits", s.synRetransmits);
        v.integer("synack_retransmits", s.synAckRetransmits);
        long[] gaps = new long[s.synRetransmitGapCount];
        for (int i = 0; i < gaps.length; i++) {
            gaps[i] = micros(s.synRetransmitGapsNanos[i]);
        }
        v.integers("syn_retransmit_gaps_us", gaps, gaps.length);
        long[] ackGaps = new long[s.synAckRetransmitGapCount];
        for (int i = 0; i < ackGaps.length; i++) {
            ackGaps[i] = micros(s.synAckRetransmitGapsNanos[i]);
        }
        v.integers("synack_retransmit_gaps_us", ackGaps, ackGaps.length);
        v.decimal("setup_us", s.setupNanos < 0 ? Double.NaN : s.setupNanos / 1000.0);
        v.decimal("handshake_rtt_us", s.handshakeRttNanos < 0 ? Double.NaN : s.handshakeRttNanos / 1000.0);
        v.endObject();
    }

    private static void visitDirection(TcpDirectionStats d, long lastSeenNanos, ReportVisitor v) {
        v.integer("packets", d.packets);
        v.integer("data_packets", d.dataPackets);
        v.integer("data_bytes", d.dataBytes);
        v.integer("unique_bytes", d.uniqueBytes);
        v.integer("retransmitted_packets", d.retransmittedPackets);
        v.integer("retransmitted_bytes", d.retransmittedBytes);
        v.beginObject("retransmits");
        for (RetransmissionClass c : RetransmissionClass.values()) {
            v.integer(c.jsonName(), d.retransmits(c));
        }
        v.endObject();
        v.integer("reordered_packets", d.reorderedPackets);
        v.integer("network_duplicates", d.networkDuplicates);
        v.integer("window_probes", d.windowProbes);
        v.integer("keep_alives", d.keepAlives);
        v.integer("lost_segments", d.lostSegments);
        v.integer("acked_unseen", d.ackedUnseen);
        v.integer("dup_acks", d.dupAcks);
        v.integer("zero_windows", d.zeroWindows);
        v.integer("dsacks", d.dsacks);
        visitRtt("rtt_us", d.rtt, true, v);
        visitRtt("ts_rtt_us", d.tsRtt, false, v);
        v.integer("max_in_flight_bytes", d.maxInFlightBytes);
        v.integer("mss", d.mss);
        v.integer("max_segment_bytes", d.maxSegmentBytes);
        // from this direction's first data packet: idle time before the transfer (a connection opened
        // ahead of its use, an application handshake) is not part of the rate (iperf3's receiver
        // figure starts with the data too)
        long durationNanos = d.firstDataNanos >= 0 ? lastSeenNanos - d.firstDataNanos : 0;
        v.decimal("throughput_bps", durationNanos > 0 ? d.uniqueBytes * 8e9 / durationNanos : 0.0);
        v.integer("state_overflows", d.stateOverflows);
    }

    private static void visitSlowStart(SlowStartStats ss, long mss, long originNanos, TcpDirectionStats d, ReportVisitor v) {
        v.beginObject("slow_start");
        v.string("exit", ss.exitReason.jsonName());
        boolean exited = ss.exitNanos >= 0;
        v.decimal("exit_us", exited ? (ss.exitNanos - originNanos) / 1000.0 : Double.NaN);
        v.integer("exit_cwnd_bytes", exited ? ss.exitCwndBytes : -1);
        v.integer("exit_cwnd_segments", exited && mss > 0 ? Math.round((double) ss.exitCwndBytes / mss) : -1);
        v.decimal("min_rtt_us", ss.minRttNanos > 0 ? ss.minRttNanos / 1000.0 : Double.NaN);
        v.decimal("max_delivery_rate_bps", ss.maxDeliveryRateBytesPerSecond * 8);
        v.integer("bdp_bytes", ss.bdpBytes());
        v.integer("max_cwnd_bytes", ss.maxCwndBytes);
        v.bool("premature", exited && ss.premature());
        v.endObject();
        v.integer("rounds", ss.rounds);
        v.integer("cwnd_stuck_rounds", ss.cwndStuckRounds);
        v.beginObject("rto_backoff");
        v.integer("max_retries", d.rtoMaxRetries);
        long[] gaps = new long[d.rtoGapCount];
        for (int i = 0; i < gaps.length; i++) {
            gaps[i] = micros(d.rtoGapsNanos[i]);
        }
        v.integers("gaps_us", gaps, gaps.length);
        v.decimal("growth_ratio", d.rtoGrowthRatio());
        v.endObject();
        v.beginObject("segment_sizes");
        for (int i = 0; i < TcpDirectionStats.SEGMENT_SIZE_BUCKETS.length; i++) {
            v.integer(TcpDirectionStats.SEGMENT_SIZE_BUCKETS[i], d.segmentSizes[i]);
        }
        v.endObject();
    }

    private static void visitRtt(String name, RunningStats s, boolean withStdev, ReportVisitor v) {
        v.beginObject(name);
        v.integer("samples", s.count());
        boolean none = s.count() == 0;
        v.decimal("min", none ? Double.NaN : s.min() / 1000.0);
        v.decimal("avg", none ? Double.NaN : s.mean() / 1000.0);
        v.decimal("max", none ? Double.NaN : s.max() / 1000.0);
        if (withStdev) {
            v.decimal("stdev", none ? Double.NaN : s.stdev() / 1000.0);
        }
        v.endObject();
    }

    private static long micros(long nanos) {
        return Math.floorDiv(nanos, 1000);
    }
}
