package io.flowtrace.jobs.conntrack;

import io.flowtrace.avro.ConntrackBudget;
import io.flowtrace.avro.Distribution;
import io.flowtrace.avro.Vantage;
import io.flowtrace.avro.mapping.ConntrackEvents;
import io.flowtrace.core.conntrack.BudgetConfig;
import io.flowtrace.core.conntrack.BudgetReport;
import io.flowtrace.core.conntrack.EventSizeBudget;
import io.flowtrace.core.conntrack.EventType;
import io.flowtrace.jobs.config.JobConfig;
import io.flowtrace.jobs.config.JobOption;
import io.flowtrace.jobs.window.TumblingWindows;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamUtils;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;

/**
 * Conntrack event-size budgets per vantage and event-time tumbling window (1 s, 1 min): the window
 * keeps its samples (~60 B each, POJO state) and, when it fires, feeds them in time order to core's
 * {@link EventSizeBudget} — the same code as the offline budget — and
 * writes the {@link ConntrackBudget} contract (in a {@link BudgetWindow}). Sorting makes the result independent of arrival
 * order: one vantage's events are spread over Kafka partitions (the key is the tuple), and the
 * burst peaks and the receive-queue replay depend on the order.
 */
public final class ConntrackBudgetWindow
        extends ProcessWindowFunction<ConntrackSample, BudgetWindow, String, TimeWindow> {
    private static final long serialVersionUID = 1L;
    /** Window lengths of the conntrack budgets (docs/conntrack.md). */
    public static final List<Duration> WINDOW_SIZES = List.of(Duration.ofSeconds(1), Duration.ofMinutes(1));

    static final Comparator<ConntrackSample> ORDER = Comparator.<ConntrackSample>comparingLong(s -> s.timeNs)
            .thenComparingInt(s -> s.kind)
            .thenComparingInt(s -> s.exactBytes)
            .thenComparingLong(s -> s.enobufs);

    private final long drainLatencyNanos;
    private final int requestedRcvbuf;
    private final String kernelFeatures;
    private final int maxSamplesPerMinute;
    /** The window lengths this job computes: {@link #WINDOW_SIZES}, after the short window when one is set. */
    private final List<Duration> windowSizes;

    public ConntrackBudgetWindow(long drainLatencyNanos, int requestedRcvbuf, String kernelFeatures) {
        this(
                drainLatencyNanos,
                requestedRcvbuf,
                kernelFeatures,
                Integer.parseInt(JobOption.CONNTRACK_WINDOW_MAX_SAMPLES.defaultValue()));
    }

    /** @param maxSamplesPerMinute samples per vantage and minute the windows keep at most ({@link ConntrackSampleCap}) */
    public ConntrackBudgetWindow(
            long drainLatencyNanos, int requestedRcvbuf, String kernelFeatures, int maxSamplesPerMinute) {
        this(drainLatencyNanos, requestedRcvbuf, kernelFeatures, maxSamplesPerMinute, 0);
    }

    /** @param shortWindowMs an extra window length below 1 s (1-999 ms), or 0 for none */
    public ConntrackBudgetWindow(
            long drainLatencyNanos,
            int requestedRcvbuf,
            String kernelFeatures,
            int maxSamplesPerMinute,
            long shortWindowMs) {
        if (shortWindowMs < 0 || shortWindowMs >= 1000) {
            throw new IllegalArgumentException("--" + JobOption.CONNTRACK_SHORT_WINDOW_MS.key()
                    + " must be 0 (none) or 1 to 999 ms, got " + shortWindowMs);
        }
        if (drainLatencyNanos <= 0 || requestedRcvbuf <= 0) {
            throw new IllegalArgumentException("conntrack drain latency and receive buffer must be positive");
        }
        ConntrackEvents.parseFeatures(kernelFeatures);
        this.drainLatencyNanos = drainLatencyNanos;
        this.requestedRcvbuf = requestedRcvbuf;
        this.kernelFeatures = kernelFeatures;
        this.maxSamplesPerMinute = maxSamplesPerMinute;
        List<Duration> sizes = new ArrayList<>();
        if (shortWindowMs > 0) {
            sizes.add(Duration.ofMillis(shortWindowMs));
        }
        sizes.addAll(WINDOW_SIZES);
        this.windowSizes = List.copyOf(sizes);
    }

    /** The window lengths of the budgets, shortest first. */
    public List<Duration> windowSizes() {
        return windowSizes;
    }

    public static ConntrackBudgetWindow fromConfig(JobConfig config) {
        return new ConntrackBudgetWindow(
                config.getLong(JobOption.CONNTRACK_DRAIN_LATENCY_MS) * 1_000_000L,
                config.getInt(JobOption.CONNTRACK_RECEIVE_BUFFER_BYTES),
                config.get(JobOption.CONNTRACK_KERNEL_FEATURES),
                config.getInt(JobOption.CONNTRACK_WINDOW_MAX_SAMPLES),
                config.getLong(JobOption.CONNTRACK_SHORT_WINDOW_MS));
    }

    /**
     * keyBy vantage → at most {@code maxSamplesPerMinute} samples per vantage and minute
     * ({@link ConntrackSampleCap}) → tumbling 1 s and 1 min event-time windows (and the short window
     * when one is set) → budgets (operator uids
     * fixed for savepoints).
     */
    public static DataStream<BudgetWindow> budgets(
            DataStream<ConntrackSample> samples, ConntrackBudgetWindow function) {
        DataStream<ConntrackSample> capped = samples.keyBy(new VantageKey())
                .process(new ConntrackSampleCap(function.maxSamplesPerMinute))
                .name("conntrack-sample-cap")
                .uid("conntrack-sample-cap");
        // still partitioned by vantage: no second shuffle
        return TumblingWindows.union(
                function.windowSizes,
                "conntrack-budgets",
                size -> DataStreamUtils.reinterpretAsKeyedStream(capped, new VantageKey())
                        .window(TumblingEventTimeWindows.of(size))
                        .process(function));
    }

    @Override
    public void process(String vantage, Context ctx, Iterable<ConntrackSample> elements, Collector<BudgetWindow> out) {
        List<ConntrackSample> samples = new ArrayList<>();
        elements.forEach(samples::add);
        if (!samples.isEmpty()) {
            TimeWindow w = ctx.window();
            out.collect(budget(samples, w.getStart(), w.getEnd()));
        }
    }

    /** The budget of one vantage's samples in [startMs, endMs). */
    public BudgetWindow budget(List<ConntrackSample> samples, long startMs, long endMs) {
        List<ConntrackSample> sorted = new ArrayList<>(samples);
        sorted.sort(ORDER);
        long windowNanos = (endMs - startMs) * 1_000_000L;
        BudgetConfig config = new BudgetConfig(
                windowNanos, drainLatencyNanos, requestedRcvbuf, ConntrackEvents.parseFeatures(kernelFeatures));
        ConntrackSample first = sorted.get(0);
        Totals t = new Totals(new EventSizeBudget(first.vantage(), startMs * 1_000_000L, config), sorted.size());
        sorted.forEach(t::add);
        BudgetReport r = t.core.report();
        double seconds = windowNanos / 1e9;
        ConntrackBudget record = ConntrackBudget.newBuilder()
                .setWindowStartMs(startMs)
                .setWindowEndMs(endMs)
                .setWindowSizeMs(endMs - startMs)
                .setVantage(new Vantage(first.agentId, first.interfaceName))
                .setEventsNew(r.newEvents())
                .setEventsUpdate(r.updateEvents())
                .setEventsDestroy(r.destroyEvents())
                .setEventsPerS(r.eventsPerSecond())
                .setMessageBytes(t.exact)
                .setMessageBytesPerS(t.exact / seconds)
                .setMessageSizeBytes(distribution(t.sizes, r))
                .setEstimatedBytes(t.estimated)
                .setWasteRatio(t.sizes.isEmpty() ? null : r.wasteRatio())
                .setTruesizeBytes(t.truesize)
                .setTruesizeBytesPerS(t.truesize / seconds)
                .setPeakBurst10msBytes(r.peakTruesize10ms())
                .setPeakBurst100msBytes(r.peakTruesize100ms())
                .setDrainLatencyMs(r.drainLatencyNanos() / 1e6)
                .setBufferNeededBytes(r.bufferNeeded())
                .setConfiguredBufferBytes(requestedRcvbuf)
                // Against sk_rcvbuf (the kernel doubles the request), the buffer core's risk uses: > 1 overflows.
                .setBufferUtilisation((double) r.bufferNeeded() / r.effectiveRcvbuf())
                .setEnobufsPredicted(r.risk() == BudgetReport.EnobufsRisk.OVERFLOW)
                .setEnobufsObserved(t.observedEnobufs(r))
                .build();
        return new BudgetWindow(
                record, r.predictedEnobufs(), r.predictedDrops(), r.risk().name(), r.effectiveRcvbuf());
    }

    /** One window's samples fed, in order, to core's budget, and the byte totals the contract adds. */
    private static final class Totals {
        final EventSizeBudget core;
        final List<Integer> sizes;
        long exact;
        long estimated;
        long truesize;
        long lossReports;
        boolean netlink;

        Totals(EventSizeBudget core, int samples) {
            this.core = core;
            this.sizes = new ArrayList<>(samples);
        }

        void add(ConntrackSample s) {
            netlink |= s.netlinkSource;
            if (s.kind == ConntrackSample.LOSS) {
                core.addObservedEnobufs((int) Math.min(s.enobufs, Integer.MAX_VALUE));
                lossReports++;
                return;
            }
            core.add(s.timeNs, EventType.values()[s.kind], s.exactBytes, s.estimatedBytes, s.truesizeBytes);
            exact += s.exactBytes;
            estimated += s.estimatedBytes;
            truesize += s.truesizeBytes;
            sizes.add(s.exactBytes);
        }

        /**
         * The loss reports' sum; 0 when only a raw netlink source (which would have reported
         * losses) wrote to the window; null when no source that can see them did.
         */
        Long observedEnobufs(BudgetReport r) {
            return lossReports > 0 ? Long.valueOf(r.observedEnobufs()) : netlink ? Long.valueOf(0) : null;
        }
    }

    /**
     * Exact message sizes: count, min, mean, p99, max from core's report; p50/p90 by the same
     * nearest-rank rule over the exact sizes; population standard deviation.
     */
    static Distribution distribution(List<Integer> sizes, BudgetReport r) {
        if (sizes.isEmpty()) {
            return Distribution.newBuilder().setCount(0).build();
        }
        List<Integer> sorted = new ArrayList<>(sizes);
        sorted.sort(null);
        double mean = r.avgSize();
        double sq = 0;
        for (int s : sorted) {
            sq += (s - mean) * (s - mean);
        }
        return Distribution.newBuilder()
                .setCount(sorted.size())
                .setMin((double) r.minSize())
                .setMean(mean)
                .setSd(Math.sqrt(sq / sorted.size()))
                .setP50((double) nearestRank(sorted, 0.50))
                .setP90((double) nearestRank(sorted, 0.90))
                .setP99((double) r.p99Size())
                .setMax((double) r.maxSize())
                .build();
    }

    static int nearestRank(List<Integer> sorted, double q) {
        int rank = (int) Math.ceil(q * sorted.size());
        return sorted.get(Math.max(rank, 1) - 1);
    }

    /** Budgets are per vantage point ("agent/interface"). */
    static final class VantageKey implements KeySelector<ConntrackSample, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String getKey(ConntrackSample s) {
            return s.vantage();
        }
    }
}
