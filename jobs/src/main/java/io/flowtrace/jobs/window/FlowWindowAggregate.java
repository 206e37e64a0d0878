package io.flowtrace.jobs.window;

import io.flowtrace.jobs.flow.FlowSummary;
import org.apache.flink.api.common.functions.AggregateFunction;

/** Folds the final records of ended flows into a window's {@link FlowWindowStats}. */
public final class FlowWindowAggregate implements AggregateFunction<FlowSummary, FlowWindowStats, FlowWindowStats> {
    private static final long serialVersionUID = 1L;

    private final int reservoirSize;

    public FlowWindowAggregate(int reservoirSize) {
        this.reservoirSize = reservoirSize;
    }

    @Override
    public FlowWindowStats createAccumulator() {
        return new FlowWindowStats(reservoirSize);
    }

    @Override
    public FlowWindowStats add(FlowSummary flow, FlowWindowStats stats) {
        stats.add(flow);
        return stats;
    }

    @Override
    public FlowWindowStats getResult(FlowWindowStats stats) {
        return stats;
    }

    @Override
    public FlowWindowStats merge(FlowWindowStats a, FlowWindowStats b) {
        a.merge(b);
        return a;
    }
}
