package io.flowtrace.jobs.conntrack;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bounds the conntrack budget windows' state: a budget window keeps every sample of its vantage and
 * window until it fires (the budget needs their exact times and sizes), so one vantage, forged or just
 * very busy, could fill the heap within a minute. Per vantage (the key) and event-time minute, the
 * first {@code maxPerMinute} samples to arrive pass; the rest are dropped and counted (metric
 * {@code conntrackSamplesOverCap}, one warning per vantage and minute). A budget over such a minute
 * covers the samples that passed, so it under-reports; docs/reliability.md ("Security") gives the
 * bound. The 1 s windows inside the minute hold at most as many samples.
 */
public final class ConntrackSampleCap extends KeyedProcessFunction<String, ConntrackSample, ConntrackSample> {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(ConntrackSampleCap.class);
    private static final long MINUTE_MS = 60_000L;

    private final int maxPerMinute;
    /** minute start (ms) → samples seen in it; an entry is removed by the timer at the minute's end. */
    private transient MapState<Long, Integer> counts;

    private transient Counter overCap;

    public ConntrackSampleCap(int maxPerMinute) {
        if (maxPerMinute < 1) {
            throw new IllegalArgumentException("conntrack-window-max-samples must be at least 1");
        }
        this.maxPerMinute = maxPerMinute;
    }

    @Override
    public void open(OpenContext context) {
        counts = getRuntimeContext().getMapState(new MapStateDescriptor<>("samples-per-minute", Types.LONG, Types.INT));
        overCap = getRuntimeContext().getMetricGroup().counter("conntrackSamplesOverCap");
    }

    @Override
    public void processElement(ConntrackSample sample, Context ctx, Collector<ConntrackSample> out) throws Exception {
        long minute = Math.floorDiv(Math.floorDiv(sample.timeNs, 1_000_000L), MINUTE_MS) * MINUTE_MS;
        Integer seen = counts.get(minute);
        int n = seen == null ? 0 : seen;
        if (seen == null) {
            // at the end of the minute (its window fires then); a late minute's timer fires at the next watermark
            ctx.timerService().registerEventTimeTimer(minute + MINUTE_MS - 1);
        }
        if (n < maxPerMinute) {
            counts.put(minute, n + 1);
            out.collect(sample);
            return;
        }
        if (n == maxPerMinute) {
            counts.put(minute, n + 1);
            LOG.warn(
                    "conntrack vantage {}: more than {} samples in the minute starting at {} ms; the rest of that minute"
                            + " is dropped from its budgets (counted in conntrackSamplesOverCap)",
                    ctx.getCurrentKey(),
                    maxPerMinute,
                    minute);
        }
        overCap.inc();
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<ConntrackSample> out) throws Exception {
        counts.remove(timestamp + 1 - MINUTE_MS);
    }
}
