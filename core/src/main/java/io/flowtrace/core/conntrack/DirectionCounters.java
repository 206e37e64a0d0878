package io.flowtrace.core.conntrack;

/** CTA_COUNTERS_ORIG / CTA_COUNTERS_REPLY: 64-bit packets and bytes (dump_counters()). */
public record DirectionCounters(long packets, long bytes) {}
