package io.flowtrace.jobs.input;

/**
 * When one input split (a Kafka partition) may stop holding back event time: the rule behind
 * {@link PauseTolerantIdleness}, kept free of Flink so it is tested directly.
 *
 * <p>A split that has never had a record is idle once the timeout has passed (an empty partition
 * must not stall the job). A split that had records and then nothing for the timeout is idle only
 * while another split of the same source reader had a record within the timeout: then the job's
 * event time rightly moves on without it. When every split of the reader is quiet, the whole input
 * has paused, and none of them goes idle: Flink (2.2, FLINK-38454) would then advance the reader's
 * watermark to the most advanced split's, and each downstream operator whose inputs are all idle
 * to the most advanced input's, so whatever a lagging split delivers after the pause is late:
 * dropped by the windows and counted as late packets. A paused input holds event time where it is.
 * Times are milliseconds of one clock (the source's input-activity clock).
 */
public final class SplitIdleness {
    private final ReaderActivity reader;
    private final long timeoutMs;
    private final long createdAtMs;
    private long lastRecordAtMs = -1;

    public SplitIdleness(ReaderActivity reader, long timeoutMs, long nowMs) {
        this.reader = reader;
        this.timeoutMs = timeoutMs;
        this.createdAtMs = nowMs;
    }

    public void record(long nowMs) {
        lastRecordAtMs = nowMs;
        reader.record(nowMs);
    }

    public boolean idle(long nowMs) {
        if (lastRecordAtMs < 0) {
            return nowMs - createdAtMs >= timeoutMs;
        }
        return nowMs - lastRecordAtMs >= timeoutMs && reader.hadRecordWithin(nowMs, timeoutMs);
    }

    /** The last record of any split of one source reader (one subtask). */
    public static final class ReaderActivity {
        private long lastRecordAtMs = -1;

        void record(long nowMs) {
            lastRecordAtMs = Math.max(lastRecordAtMs, nowMs);
        }

        boolean hadRecordWithin(long nowMs, long windowMs) {
            return lastRecordAtMs >= 0 && nowMs - lastRecordAtMs < windowMs;
        }
    }
}
