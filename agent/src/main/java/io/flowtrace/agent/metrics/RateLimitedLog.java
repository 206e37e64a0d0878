package io.flowtrace.agent.metrics;

import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/**
 * Logs a kind of message at most once per interval and says how many were suppressed in between,
 * so a corrupt capture or a dead broker cannot flood stderr.
 */
public final class RateLimitedLog {
    private final Logger log;
    private final long intervalNanos;
    private final AtomicLong nextAllowed = new AtomicLong(Long.MIN_VALUE);
    private final AtomicLong suppressed = new AtomicLong();

    public RateLimitedLog(Logger log, long intervalMillis) {
        this.log = log;
        this.intervalNanos = intervalMillis * 1_000_000L;
    }

    public void warn(String format, Object... args) {
        long now = System.nanoTime();
        long next = nextAllowed.get();
        if ((next != Long.MIN_VALUE && now - next < 0) || !nextAllowed.compareAndSet(next, now + intervalNanos)) {
            suppressed.incrementAndGet();
            return;
        }
        long skipped = suppressed.getAndSet(0);
        if (skipped > 0) {
            log.warn(format + " (" + skipped + " similar messages suppressed)", args);
        } else {
            log.warn(format, args);
        }
    }
}
