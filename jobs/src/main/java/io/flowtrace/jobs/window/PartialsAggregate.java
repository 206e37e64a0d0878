package io.flowtrace.jobs.window;

import org.apache.flink.api.common.functions.AggregateFunction;

/**
 * Merges the upstream tasks' {@link WindowPartial}s of one key and window into the window's {@link
 * FlowWindowStats}: the same accumulator type as the windows had when every flow crossed the shuffle, so window state
 * in a savepoint taken before the pre-aggregation restores.
 */
public final class PartialsAggregate implements AggregateFunction<WindowPartial, FlowWindowStats, FlowWindowStats> {
    private static final long serialVersionUID = 1L;

    private final int reservoirSize;

    public PartialsAggregate(int reservoirSize) {
        this.reservoirSize = reservoirSize;
    }

    @Override
    public FlowWindowStats createAccumulator() {
        return new FlowWindowStats(reservoirSize);
    }

    @Override
    public FlowWindowStats add(WindowPartial partial, FlowWindowStats stats) {
        stats.merge(partial.stats);
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
