package io.flowtrace.jobs.window;

import io.flowtrace.avro.ServiceWindow;
import io.flowtrace.avro.VantageWindow;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.jobs.flow.FlowSummary;
import java.time.Duration;
import java.util.List;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.util.Collector;

/**
 * The flow windows of the job (docs/job.md, "Topology"): the final record of every ended flow →
 * keyBy vantage and server, and keyBy vantage → tumbling event-time windows of each of
 * {@link #SIZES} → {@link FlowWindowAggregate} → ServiceWindow and VantageWindow rows.
 */
public record FlowWindows(DataStream<ServiceWindow> services, DataStream<VantageWindow> vantages) {
    /** Window lengths of the service, vantage and OpenVPN server aggregates (docs/job.md). */
    public static final List<Duration> SIZES = List.of(Duration.ofSeconds(10), Duration.ofMinutes(1));

    /** @param reservoir flows sampled per window for percentiles ({@code --reservoir-size}) */
    public static FlowWindows of(DataStream<FlowSummary> flows, int reservoir) {
        DataStream<FlowSummary> ended =
                flows.flatMap(new FinalRecords()).name("ended-flows").uid("ended-flows");
        return new FlowWindows(
                TumblingWindows.union(
                        SIZES,
                        "service-windows",
                        size -> ended.keyBy(new ServiceKey())
                                .window(TumblingEventTimeWindows.of(size))
                                .aggregate(new FlowWindowAggregate(reservoir), new WindowRecords.ServiceWindows())),
                TumblingWindows.union(
                        SIZES,
                        "vantage-windows",
                        size -> ended.keyBy(new VantageKey())
                                .window(TumblingEventTimeWindows.of(size))
                                .aggregate(new FlowWindowAggregate(reservoir), new WindowRecords.VantageWindows())));
    }

    /**
     * The windows aggregate flows once, when they end, from the flow record alone: the copy they get
     * leaves out the {@code analyze --json} text (only the flow_summary row needs it), which each of
     * the four window shuffles would otherwise serialize again.
     */
    static final class FinalRecords implements FlatMapFunction<FlowSummary, FlowSummary> {
        private static final long serialVersionUID = 1L;

        @Override
        public void flatMap(FlowSummary summary, Collector<FlowSummary> out) {
            if (summary.finalRecord) {
                out.collect(new FlowSummary(summary.record, null, summary.latePackets, true));
            }
        }
    }

    /** Per vantage and service: a connection seen at two vantage points is two flows. */
    static final class ServiceKey implements KeySelector<FlowSummary, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String getKey(FlowSummary s) {
            return PacketEvents.vantage(s.record.getFlow().getVantage()) + " "
                    + s.record.getFlow().getServer();
        }
    }

    static final class VantageKey implements KeySelector<FlowSummary, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String getKey(FlowSummary s) {
            return PacketEvents.vantage(s.record.getFlow().getVantage());
        }
    }
}
