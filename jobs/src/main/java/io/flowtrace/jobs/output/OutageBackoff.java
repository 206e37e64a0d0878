package io.flowtrace.jobs.output;

import java.io.Serializable;

/**
 * How long a sink writer waits between attempts while its database is unreachable: exponential
 * from {@code initialMs}, doubling, capped at {@code maxMs}; it gives up (and fails the job, which the
 * restart strategy restarts) once the next wait would take the outage past {@code giveUpAfterMs}.
 */
public record OutageBackoff(long initialMs, long maxMs, long giveUpAfterMs) implements Serializable {

    public OutageBackoff {
        if (initialMs <= 0 || maxMs < initialMs || giveUpAfterMs < 0) {
            throw new IllegalArgumentException("backoff needs 0 < initial <= max and give-up >= 0, got " + initialMs
                    + " / " + maxMs + " / " + giveUpAfterMs);
        }
    }

    /** The wait before retry number {@code retry} (0 for the first): initial × 2^retry, at most max. */
    public long delayMs(int retry) {
        long d = initialMs;
        for (int i = 0; i < retry && d < maxMs; i++) {
            d *= 2;
        }
        return Math.min(d, maxMs);
    }

    /** True when waiting {@code delayMs} more would take an outage of {@code elapsedMs} so far past the limit. */
    public boolean givesUp(long elapsedMs, long delayMs) {
        return elapsedMs + delayMs > giveUpAfterMs;
    }
}
