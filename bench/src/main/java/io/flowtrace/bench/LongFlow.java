package io.flowtrace.bench;

import io.flowtrace.core.pcap.CaptureFormatException;
import java.io.IOException;

/**
 * {@code java -cp bench/target/flowtrace-bench.jar io.flowtrace.bench.LongFlow IN OUT PACKETS [--one-direction]}:
 * one long TCP flow from a short real one, made by core's testing {@link io.flowtrace.core.testing.LongFlow}
 * (shared with the tests that need a long flow, e.g. the report's browser test).
 */
public final class LongFlow {
    private LongFlow() {}

    public static void main(String[] args) throws IOException, CaptureFormatException {
        io.flowtrace.core.testing.LongFlow.main(args);
    }
}
