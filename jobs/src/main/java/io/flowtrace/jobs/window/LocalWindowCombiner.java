package io.flowtrace.jobs.window;

import io.flowtrace.jobs.flow.FlowSummary;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;

/**
 * The local half of a two-phase window aggregation (docs/job.md, "Topology"): in the flow task,
 * before the shuffle, folds the final record of every ended flow into per key and tumbling window
 * {@link FlowWindowStats}, and sends each as one {@link WindowPartial} when the watermark passes the
 * window's end. The keyed window after the shuffle merges the partials of all upstream tasks
 * ({@link PartialsAggregate}), so the shuffle carries one partial per task, key and window instead
 * of every flow. Not keyed: the open windows are operator list state, checkpointed and restored
 * (redistributed on rescale: partials of one key and window merge wherever they land).
 *
 * <p>The windows downstream see what they saw when every flow crossed the shuffle: a partial is sent
 * before the watermark that could fire its window; a flow whose window the watermark here has
 * already passed is sent at once alone, so the window downstream judges its lateness as it did the
 * flow's; and when this task's input goes idle (the watermark downstream then moves without it),
 * every open window is sent before the idle status. Sums are the same; the reservoirs merge into a
 * uniform sample of the union (SampleReservoir.merge), exact while a window holds at most {@code
 * reservoirSize} values as before.
 */
public final class LocalWindowCombiner extends AbstractStreamOperator<WindowPartial>
        implements OneInputStreamOperator<FlowSummary, WindowPartial> {
    private static final long serialVersionUID = 1L;

    private final long sizeMs;
    private final KeySelector<FlowSummary, String> key;
    private final int reservoirSize;

    /** Window's last millisecond → key → totals of the flows that ended in it here. */
    private transient TreeMap<Long, Map<String, FlowWindowStats>> open;

    private transient ListState<WindowPartial> checkpointed;
    private transient long watermark;

    public LocalWindowCombiner(long sizeMs, KeySelector<FlowSummary, String> key, int reservoirSize) {
        this.sizeMs = sizeMs;
        this.key = key;
        this.reservoirSize = reservoirSize;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        open = new TreeMap<>();
        watermark = Long.MIN_VALUE;
        checkpointed = context.getOperatorStateStore()
                .getListState(new ListStateDescriptor<>("open-window-partials", WindowPartial.class));
        for (WindowPartial p : checkpointed.get()) {
            totals(p.windowMaxTimestampMs, p.key).merge(p.stats);
        }
    }

    @Override
    public void processElement(StreamRecord<FlowSummary> element) throws Exception {
        FlowSummary flow = element.getValue();
        if (!flow.finalRecord) {
            return;
        }
        if (!element.hasTimestamp()) {
            throw new IllegalStateException("an ended flow without an event time reached the flow windows");
        }
        long maxTimestamp = TimeWindow.getWindowStartWithOffset(element.getTimestamp(), 0, sizeMs) + sizeMs - 1;
        String k = key.getKey(flow);
        if (maxTimestamp <= watermark) {
            FlowWindowStats alone = new FlowWindowStats(reservoirSize);
            alone.add(flow);
            output.collect(new StreamRecord<>(new WindowPartial(k, maxTimestamp, alone), maxTimestamp));
            return;
        }
        totals(maxTimestamp, k).add(flow);
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        send(open.headMap(mark.getTimestamp(), true));
        watermark = Math.max(watermark, mark.getTimestamp());
        super.processWatermark(mark);
    }

    @Override
    public void processWatermarkStatus(WatermarkStatus status) throws Exception {
        if (status.isIdle()) {
            send(open);
        }
        super.processWatermarkStatus(status);
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        List<WindowPartial> all = new ArrayList<>();
        open.forEach((maxTimestamp, byKey) ->
                byKey.forEach((k, stats) -> all.add(new WindowPartial(k, maxTimestamp, stats))));
        checkpointed.update(all);
    }

    /** Open windows held here (for tests: the state a checkpoint would write). */
    int openWindows() {
        return open.values().stream().mapToInt(Map::size).sum();
    }

    private FlowWindowStats totals(long maxTimestamp, String k) {
        return open.computeIfAbsent(maxTimestamp, t -> new HashMap<>())
                .computeIfAbsent(k, x -> new FlowWindowStats(reservoirSize));
    }

    private void send(NavigableMap<Long, Map<String, FlowWindowStats>> windows) {
        windows.forEach((maxTimestamp, byKey) -> byKey.forEach((k, stats) ->
                output.collect(new StreamRecord<>(new WindowPartial(k, maxTimestamp, stats), maxTimestamp))));
        windows.clear();
    }
}
