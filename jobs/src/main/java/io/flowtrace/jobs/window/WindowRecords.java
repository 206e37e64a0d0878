package io.flowtrace.jobs.window;

import io.flowtrace.avro.Distribution;
import io.flowtrace.avro.RetransmitCounts;
import io.flowtrace.avro.ServiceWindow;
import io.flowtrace.avro.Vantage;
import io.flowtrace.avro.VantageWindow;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;

/** Stamps a window's {@link FlowWindowStats} with its bounds and writes the output contracts. */
public final class WindowRecords {
    private WindowRecords() {}

    static Distribution distribution(Reservoir r) {
        boolean none = r.count == 0;
        return Distribution.newBuilder()
                .setCount(r.count)
                .setMin(none ? null : r.min)
                .setMean(none ? null : r.mean())
                .setSd(none ? null : r.sd())
                .setP50(none ? null : r.percentile(50))
                .setP90(none ? null : r.percentile(90))
                .setP99(none ? null : r.percentile(99))
                .setMax(none ? null : r.max)
                .build();
    }

    static RetransmitCounts retransmits(FlowWindowStats s) {
        return new RetransmitCounts(s.rto, s.fast, s.spurious, s.tlp, s.other);
    }

    /** A window's one result (the aggregate's) as its output record, with the window's bounds. */
    abstract static class StampedWindows<O> extends ProcessWindowFunction<FlowWindowStats, O, String, TimeWindow> {
        private static final long serialVersionUID = 1L;

        @Override
        public void process(String key, Context ctx, Iterable<FlowWindowStats> results, Collector<O> out) {
            TimeWindow w = ctx.window();
            for (FlowWindowStats s : results) {
                out.collect(record(s, w.getStart(), w.getEnd()));
            }
        }

        abstract O record(FlowWindowStats s, long startMs, long endMs);
    }

    /** Per vantage and service (server ip:port). */
    public static final class ServiceWindows extends StampedWindows<ServiceWindow> {
        private static final long serialVersionUID = 1L;

        @Override
        ServiceWindow record(FlowWindowStats s, long startMs, long endMs) {
            return ServiceWindow.newBuilder()
                    .setWindowStartMs(startMs)
                    .setWindowEndMs(endMs)
                    .setWindowSizeMs(endMs - startMs)
                    .setVantage(new Vantage(s.agentId, s.interfaceName))
                    .setService(s.service)
                    .setConnections(s.flows)
                    .setCompletedHandshakes(s.completedHandshakes)
                    .setSetupUs(distribution(s.setupUs))
                    .setSynRetransmits(s.synRetransmits)
                    .setSynackRetransmits(s.synackRetransmits)
                    .setDataPackets(s.dataPackets)
                    .setDataBytes(s.dataBytes)
                    .setRetransmittedPackets(s.retransmittedPackets)
                    .setRetransmits(retransmits(s))
                    .setRetransmitRate(s.retransmitRate())
                    .setRttUs(distribution(s.rttUs))
                    .setSlowStartExitCwndSegments(distribution(s.exitCwndSegments))
                    .setSlowStartPremature(s.prematureExits)
                    .setSlowStartPrematureShare(s.prematureShare())
                    .setThroughputBps(s.throughputBps(endMs - startMs))
                    .build();
        }
    }

    /** Per vantage point. */
    public static final class VantageWindows extends StampedWindows<VantageWindow> {
        private static final long serialVersionUID = 1L;

        @Override
        VantageWindow record(FlowWindowStats s, long startMs, long endMs) {
            return VantageWindow.newBuilder()
                    .setWindowStartMs(startMs)
                    .setWindowEndMs(endMs)
                    .setWindowSizeMs(endMs - startMs)
                    .setVantage(new Vantage(s.agentId, s.interfaceName))
                    .setPackets(s.packets)
                    .setLatePackets(s.latePackets)
                    .setFlowsEnded(s.flows)
                    .setDataPackets(s.dataPackets)
                    .setRetransmittedPackets(s.retransmittedPackets)
                    .setRetransmits(retransmits(s))
                    .setRttUs(distribution(s.rttUs))
                    .setThroughputBps(s.throughputBps(endMs - startMs))
                    .build();
        }
    }
}
