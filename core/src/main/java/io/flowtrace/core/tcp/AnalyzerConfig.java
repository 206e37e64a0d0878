package io.flowtrace.core.tcp;

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
 */
public record AnalyzerConfig(
        long minRtoNanos,
        long defaultReorderWindowNanos,
        long minReorderWindowNanos,
        long idleTimeoutNanos,
        long halfOpenTimeoutNanos)
        implements java.io.Serializable {

    public static final AnalyzerConfig DEFAULTS =
            new AnalyzerConfig(180_000_000L, 3_000_000L, 250_000L, 300_000_000_000L, 30_000_000_000L);

    public AnalyzerConfig withIdleTimeouts(long idleNanos, long halfOpenNanos) {
        return new AnalyzerConfig(
                minRtoNanos, defaultReorderWindowNanos, minReorderWindowNanos, idleNanos, halfOpenNanos);
    }
}
