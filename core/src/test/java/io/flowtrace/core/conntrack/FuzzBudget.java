package io.flowtrace.core.conntrack;

import java.lang.management.ManagementFactory;

/**
 * Per-input bounds of the conntrack fuzz tests: how many inputs (-Dfuzz.iterations, 10^5 in CI,
 * 10^6 with -Pfuzz-heavy), the longest one input may take, and the most bytes one input may
 * allocate (HotSpot's per-thread allocation counter). The time bound is generous (a loaded 2-core
 * machine stalls for GC and other builds); it catches hangs and quadratic blow-ups, not slowness.
 */
final class FuzzBudget {
    static final int ITERATIONS = Integer.getInteger("fuzz.iterations", 100_000);
    static final long MAX_NANOS_PER_INPUT = 5_000_000_000L;
    /** A parse may copy its input a few times; a claimed 2^31 length must not turn into an allocation. */
    static final long MAX_BYTES_PER_INPUT = 4L << 20;
    /** The first inputs load classes and compile: their time and allocation are not the parser's. */
    static final int WARM_UP = 1000;

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    long worstNanos;
    long worstBytes;
    int worstNanosInput = -1;
    int worstBytesInput = -1;
    private long startNanos;
    private long startBytes;

    FuzzBudget() {
        THREADS.setThreadAllocatedMemoryEnabled(true);
    }

    void begin() {
        startBytes = THREADS.getCurrentThreadAllocatedBytes();
        startNanos = System.nanoTime();
    }

    void end(int input) {
        if (input < WARM_UP) {
            return;
        }
        long nanos = System.nanoTime() - startNanos;
        long bytes = THREADS.getCurrentThreadAllocatedBytes() - startBytes;
        if (nanos > worstNanos) {
            worstNanos = nanos;
            worstNanosInput = input;
        }
        if (bytes > worstBytes) {
            worstBytes = bytes;
            worstBytesInput = input;
        }
    }

    @Override
    public String toString() {
        return String.format(
                "slowest input %d: %.3f ms, largest allocation input %d: %d B",
                worstNanosInput, worstNanos / 1e6, worstBytesInput, worstBytes);
    }
}
