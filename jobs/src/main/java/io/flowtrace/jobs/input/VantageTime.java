package io.flowtrace.jobs.input;

import java.io.Serializable;

/**
 * What one record of an input may do to event time ({@link SlowestVantageWatermarks}): the vantage
 * it speaks for, and the capture time it may move that vantage's watermark to.
 */
interface VantageTime<T> extends Serializable {
    /** The vantage text ("agent/interface") of a record that is not a dead letter. */
    String vantage(T record);

    /**
     * The time in ms by which the record may move its vantage's watermark, or {@code Long.MIN_VALUE}
     * for none: only a validated packet or event has one.
     *
     * @param timestamp the record's event timestamp as the strategy's timestamp assigner gave it
     * @param nowMs the job's wall clock
     */
    long time(T record, long timestamp, long nowMs);
}
