package io.flowtrace.core.tcp;

import java.io.Serializable;

/**
 * Tunables of the analyser, each with the source of its default.
 *
 * @param minRtoNanos floor below which a stall is not called an RTO. Linux's TCP_RTO_MIN is 200 ms
 *     (include/net/tcp.h); 180 ms leaves room for capture-timestamp jitter.
 * @param defaultReorderWindowNanos hole-fill age under which a segment counts as reordered when no
 *     RTT is known yet: tshark's 3 ms default (packet-tcp.c, ooo_thres).
 * @param minReorderWindowNanos the reorder window never drops below this, even on sub-millisecond paths.
 * @param idleTimeoutNanos an established flow with no packet for this long ends as "idle".
 * @param halfOpenTimeoutNanos a flow that never completed its handshake ends this much sooner
 *     (SYN floods must not fill memory).
 * @param maxSegmentsPerDirection the most unacknowledged segments a flow holds per direction (1 to
 *     {@value #MAX_SEGMENTS_PER_DIRECTION}); with one more the oldest is dropped and counted in the
 *     direction's {@code stateOverflows} (the report's "state overflows"), and what needed it (RTT
 *     samples, retransmission classes of that segment) is missing for that flow. Bounds a flow's state:
 *     a segment costs 41 bytes in memory. {@link #DEFAULTS} (offline {@code analyze}) keep the most;
 *     a job keeps fewer per flow because it holds many flows at once (docs/job.md).
 */
public record AnalyzerConfig(
        long minRtoNanos,
        long defaultReorderWindowNanos,
        long minReorderWindowNanos,
        long idleTimeoutNanos,
        long halfOpenTimeoutNanos,
        int maxSegmentsPerDirection)
        implements Serializable {

    /**
     * The hard ceiling of {@link #maxSegmentsPerDirection} (2^15, ≈ 1.3 MB per direction in memory):
     * 32 768 segments of 1 448 bytes are 47 MB in flight, a 10 Gbit/s path with a 38 ms RTT.
     */
    public static final int MAX_SEGMENTS_PER_DIRECTION = 1 << 15;

    public static final AnalyzerConfig DEFAULTS = new AnalyzerConfig(
            180_000_000L, 3_000_000L, 250_000L, 300_000_000_000L, 30_000_000_000L, MAX_SEGMENTS_PER_DIRECTION);

    public AnalyzerConfig {
        if (maxSegmentsPerDirection < 1 || maxSegmentsPerDirection > MAX_SEGMENTS_PER_DIRECTION) {
            throw new IllegalArgumentException("maxSegmentsPerDirection must be 1 to " + MAX_SEGMENTS_PER_DIRECTION
                    + ", not " + maxSegmentsPerDirection);
        }
    }

    /** The first five tunables, with the most segments ({@link #MAX_SEGMENTS_PER_DIRECTION}). */
    public AnalyzerConfig(
            long minRtoNanos,
            long defaultReorderWindowNanos,
            long minReorderWindowNanos,
            long idleTimeoutNanos,
            long halfOpenTimeoutNanos) {
        this(
                minRtoNanos,
                defaultReorderWindowNanos,
                minReorderWindowNanos,
                idleTimeoutNanos,
                halfOpenTimeoutNanos,
                MAX_SEGMENTS_PER_DIRECTION);
    }

    public AnalyzerConfig withIdleTimeouts(long idleNanos, long halfOpenNanos) {
        return new AnalyzerConfig(
                minRtoNanos,
                defaultReorderWindowNanos,
                minReorderWindowNanos,
                idleNanos,
                halfOpenNanos,
                maxSegmentsPerDirection);
    }

    public AnalyzerConfig withMaxSegmentsPerDirection(int segments) {
        return new AnalyzerConfig(
                minRtoNanos,
                defaultReorderWindowNanos,
                minReorderWindowNanos,
                idleTimeoutNanos,
                halfOpenTimeoutNanos,
                segments);
    }
}
