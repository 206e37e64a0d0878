package io.flowtrace.agent.batch;

import java.util.concurrent.TimeUnit;

/**
 * When an open per-flow batch is flushed (docs/agent.md, "Per-flow batches", has the measurement
 * behind the defaults): at {@code maxPackets} packets, when the next packet might take it past
 * {@code maxBytes} encoded bytes, {@code lingerNanos} after its first packet, and when a new flow
 * would open more than {@code maxOpenBatches} batches (the oldest is flushed). Memory for open
 * batches is bounded by {@code maxOpenBatches × maxBytes}.
 */
public record BatchLimits(int maxPackets, int maxBytes, long lingerNanos, int maxOpenBatches) {
    public static final int DEFAULT_MAX_PACKETS = 512;
    /** Far below Kafka's default max.request.size and message.max.bytes (1 MiB). */
    public static final int DEFAULT_MAX_BYTES = 32 * 1024;

    public static final long DEFAULT_LINGER_MS = 20;
    public static final int DEFAULT_MAX_OPEN_BATCHES = 1024;
    /** A batch must stay well under Kafka's default 1 MiB record limit. */
    public static final int MAX_BYTES_LIMIT = 512 * 1024;

    public static final BatchLimits DEFAULTS = new BatchLimits(
            DEFAULT_MAX_PACKETS,
            DEFAULT_MAX_BYTES,
            TimeUnit.MILLISECONDS.toNanos(DEFAULT_LINGER_MS),
            DEFAULT_MAX_OPEN_BATCHES);

    public BatchLimits {
        if (maxPackets < 1) {
            throw new IllegalArgumentException("packets per batch must be at least 1, not " + maxPackets);
        }
        if (maxBytes < 1024 || maxBytes > MAX_BYTES_LIMIT) {
            throw new IllegalArgumentException(
                    "batch bytes must be between 1024 and " + MAX_BYTES_LIMIT + ", not " + maxBytes);
        }
        if (lingerNanos < 0 || lingerNanos > TimeUnit.SECONDS.toNanos(10)) {
            throw new IllegalArgumentException("batch linger must be between 0 and 10 s, not " + lingerNanos + " ns");
        }
        if (maxOpenBatches < 1) {
            throw new IllegalArgumentException("open batches must be at least 1, not " + maxOpenBatches);
        }
    }
}
