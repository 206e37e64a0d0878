package io.flowtrace.agent.metrics;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What an agent counts. Written by the capture thread and by Kafka's I/O thread, read by the
 * progress display, the metrics file and the final summary.
 *
 * <ul>
 *   <li>{@code read}: records (frames, conntrack events) read from the source;</li>
 *   <li>{@code accepted}: records handed to publishing (TCP packets, conntrack events and losses);</li>
 *   <li>{@code published}: records Kafka acknowledged (acks=all);</li>
 *   <li>{@code spooled}: records written to the disk spool; {@code replayed}: read back from it and sent;</li>
 *   <li>{@code dropped}: records lost because the spool was full;</li>
 *   <li>{@code failed}: records Kafka rejected for good (by exception), not retried;</li>
 *   <li>{@code skipped}: records that are not ours to publish (non-TCP), by reason;</li>
 *   <li>{@code malformed}: records that could not be decoded, by reason;</li>
 *   <li>gauges: the source's own counters (tcpdump's "dropped by kernel", ENOBUFS) by name.</li>
 * </ul>
 * The stage counters above count packets (or conntrack events), whatever Kafka record carries them.
 * The {@code *Batches} counters count the Kafka records themselves at the same stages: a batch of
 * one flow's packets, or, with batching off and for conntrack, one record per packet or event.
 * {@code batchFlushes} counts why batches left the batcher (docs/agent.md).
 */
public final class AgentMetrics {
    public final LongAdder read = new LongAdder();
    public final LongAdder accepted = new LongAdder();
    public final LongAdder published = new LongAdder();
    public final LongAdder spooled = new LongAdder();
    public final LongAdder replayed = new LongAdder();
    public final LongAdder dropped = new LongAdder();
    public final LongAdder acceptedBatches = new LongAdder();
    public final LongAdder publishedBatches = new LongAdder();
    public final LongAdder spooledBatches = new LongAdder();
    public final LongAdder replayedBatches = new LongAdder();
    public final LongAdder droppedBatches = new LongAdder();
    private final Map<String, LongAdder> batchFlushes = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> failed = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> skipped = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> malformed = new ConcurrentHashMap<>();
    private final Map<String, Long> sourceCounters = new ConcurrentHashMap<>();

    public void batchFlushed(String reason) {
        batchFlushes.computeIfAbsent(reason, k -> new LongAdder()).increment();
    }

    public Map<String, Long> batchFlushes() {
        return snapshot(batchFlushes);
    }

    public void failed(String reason) {
        failed.computeIfAbsent(reason, k -> new LongAdder()).increment();
    }

    public void skipped(String reason) {
        skipped.computeIfAbsent(reason, k -> new LongAdder()).increment();
    }

    public void malformed(String reason) {
        malformed.computeIfAbsent(reason, k -> new LongAdder()).increment();
    }

    /** Sets a counter the source keeps itself (e.g. tcpdump_dropped_by_kernel), cumulative. */
    public void sourceCounter(String name, long value) {
        sourceCounters.put(name, value);
    }

    public void addSourceCounter(String name, long delta) {
        sourceCounters.merge(name, delta, Long::sum);
    }

    public Map<String, Long> failed() {
        return snapshot(failed);
    }

    public Map<String, Long> skipped() {
        return snapshot(skipped);
    }

    public Map<String, Long> malformed() {
        return snapshot(malformed);
    }

    public Map<String, Long> sourceCounters() {
        return new TreeMap<>(sourceCounters);
    }

    public long failedTotal() {
        return sum(failed);
    }

    public long malformedTotal() {
        return sum(malformed);
    }

    public long skippedTotal() {
        return sum(skipped);
    }

    private static Map<String, Long> snapshot(Map<String, LongAdder> m) {
        Map<String, Long> out = new TreeMap<>();
        m.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }

    private static long sum(Map<String, LongAdder> m) {
        long n = 0;
        for (LongAdder a : m.values()) {
            n += a.sum();
        }
        return n;
    }
}
