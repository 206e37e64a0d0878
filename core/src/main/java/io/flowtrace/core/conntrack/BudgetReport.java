package io.flowtrace.core.conntrack;

/**
 * One vantage's conntrack event budget over one window. Rates are per second of the window.
 *
 * @param newEvents/updateEvents/destroyEvents  counts by type
 * @param wasteRatio             1 − Σexact / Σestimate: the part of nlmsg_new()'s allocation unused
 * @param peakBytes10ms/100ms    largest message bytes in one 10 ms / 100 ms sub-window
 * @param peakTruesize10ms/100ms the same in receive-buffer charge (truesize)
 * @param bufferNeeded           largest truesize sum within any drain interval: the sk_rcvbuf needed
 * @param recommendedRcvbuf      what to pass to SO_RCVBUF(FORCE) for that (the kernel doubles it)
 * @param effectiveRcvbuf        sk_rcvbuf for the configured request
 * @param predictedDrops/predictedEnobufs  from {@link ReceiveQueueModel} with the configured buffer
 * @param observedEnobufs        ENOBUFS the source actually got (raw netlink only; -1 when it cannot see them)
 */
public record BudgetReport(
        String vantage,
        long windowStartNanos,
        long windowNanos,
        long newEvents,
        long updateEvents,
        long destroyEvents,
        double eventsPerSecond,
        double bytesPerSecond,
        double truesizeBytesPerSecond,
        int minSize,
        double avgSize,
        int p99Size,
        int maxSize,
        double wasteRatio,
        long peakBytes10ms,
        long peakBytes100ms,
        long peakTruesize10ms,
        long peakTruesize100ms,
        long drainLatencyNanos,
        long bufferNeeded,
        long recommendedRcvbuf,
        long effectiveRcvbuf,
        EnobufsRisk risk,
        long predictedDrops,
        long predictedEnobufs,
        long observedEnobufs) {

    /** NONE: the worst stall fills under half the buffer; TIGHT: over half; OVERFLOW: events are lost. */
    public enum EnobufsRisk {
        NONE,
        TIGHT,
        OVERFLOW
    }
}
