package io.flowtrace.agent.packets;

import java.util.concurrent.locks.LockSupport;

/**
 * Replays a capture at its own speed times a factor: the packet captured {@code t} after the first
 * one is published {@code t / factor} after the first one was. {@link #UNPACED} does not wait.
 */
public final class ReplayPacer {
    public static final ReplayPacer UNPACED = new ReplayPacer(0);
    /** Sleeping for less than this costs more than it is worth (timer slack is ~50 µs on Linux). */
    private static final long MIN_SLEEP_NANOS = 200_000;

    private final double factor;
    private long firstCaptureNanos = Long.MIN_VALUE;
    private long firstWallNanos;

    /** @param factor capture speed multiplier (> 0), or 0 for as fast as possible */
    public ReplayPacer(double factor) {
        if (factor < 0 || Double.isNaN(factor)) {
            throw new IllegalArgumentException("pace factor must be > 0 (or 0 for unpaced), not " + factor);
        }
        this.factor = factor;
    }

    public void await(long captureNanos) {
        if (factor == 0) {
            return;
        }
        long now = System.nanoTime();
        if (firstCaptureNanos == Long.MIN_VALUE) {
            firstCaptureNanos = captureNanos;
            firstWallNanos = now;
            return;
        }
        long due = firstWallNanos + (long) ((captureNanos - firstCaptureNanos) / factor);
        long wait = due - now;
        if (wait > MIN_SLEEP_NANOS) {
            LockSupport.parkNanos(wait);
        }
    }
}
