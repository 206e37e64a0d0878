package io.flowtrace.jobs.window;

import io.flowtrace.avro.ServiceWindow;
import io.flowtrace.avro.VantageWindow;
import io.flowtrace.jobs.flow.FlowSummary;
import java.time.Duration;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;

/**
 * The flow windows of the job (docs/job.md, "Topology"): for each of {@link #SIZES}, the final record
 * of every ended flow is folded per vantage and server, and per vantage, into the flow task's open
 * windows ({@link LocalWindowCombiner}, before any shuffle); the shuffle carries one {@link
 * WindowPartial} per task, key and window → keyBy → tumbling event-time window merging the partials
 * ({@link PartialsAggregate}) → ServiceWindow and VantageWindow rows.
 */
public record FlowWindows(DataStream<ServiceWindow> services, DataStream<VantageWindow> vantages) {
    /** Window lengths of the service, vantage and OpenVPN server aggregates (docs/job.md). */
    public static final List<Duration> SIZES = List.of(Duration.ofSeconds(10), Duration.ofMinutes(1));

    /** @param reservoir flows sampled per window for percentiles ({@code --reservoir-size}) */
    public static FlowWindows of(DataStream<FlowSummary> flows, int reservoir) {
        return new FlowWindows(
                TumblingWindows.union(
                        SIZES,
                        "service-windows",
                        size -> partials(flows, size, new ServiceKey(), "service-windows", reservoir)
                                .keyBy(WindowPartial::key)
                                .window(TumblingEventTimeWindows.of(size))
                                .aggregate(new PartialsAggregate(reservoir), new WindowRecords.ServiceWindows())),
                TumblingWindows.union(
                        SIZES,
                        "vantage-windows",
                        size -> partials(flows, size, new VantageKey(), "vantage-windows", reservoir)
                                .keyBy(WindowPartial::key)
                                .window(TumblingEventTimeWindows.of(size))
                                .aggregate(new PartialsAggregate(reservoir), new WindowRecords.VantageWindows())));
    }

    /** The flow task's local half of one window operator, uid {@code NAME-<size>-local}. */
    private static DataStream<WindowPartial> partials(
            DataStream<FlowSummary> flows,
            Duration size,
            KeySelector<FlowSummary, String> key,
            String name,
            int reservoir) {
        String uid = TumblingWindows.uid(name, size) + "-local";
        return flows.transform(
                        uid,
                        TypeInformation.of(WindowPartial.class),
                        new LocalWindowCombiner(size.toMillis(), key, reservoir))
                .uid(uid);
    }

    /** Per vantage and service: a connection seen at two vantage points is two flows. */
    static final class ServiceKey implements KeySelector<FlowSummary, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String getKey(FlowSummary s) {
            return s.vantage + " " + s.server;
        }
    }

    static final class VantageKey implements KeySelector<FlowSummary, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String getKey(FlowSummary s) {
            return s.vantage;
        }
    }
}
