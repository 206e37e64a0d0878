package io.flowtrace.core.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * One round as a delivery-rate sample on its edges (tcp_rate_gen, docs/metrics.md
 * max_delivery_rate_bps): the interval is the longer of the ACK phase and the send phase, and a
 * sample whose interval is shorter than the min RTT, or empty, is discarded. Rates worked out here.
 */
class DeliveryRateSamplerTest {
    private static final long MS = 1_000_000L;

    /** 1,000 B over exactly the min RTT (1 ms) is a sample: 1,000,000 B/s; 1 ns shorter it is not. */
    @Test
    void aSampleAsLongAsTheMinRttCountsAndAShorterOneNot() {
        assertThat(rate(MS, 2 * MS, -1, -1, 1_000, MS)).isEqualTo(1_000_000.0);
        assertThat(rate(MS, 2 * MS - 1, -1, -1, 1_000, MS)).isZero();
    }

    /** A round begun and ended by ACKs stamped in the same nanosecond has no interval: no rate, min RTT or not. */
    @Test
    void aRoundWithoutDurationIsNoSample() {
        assertThat(rate(5 * MS, 5 * MS, -1, -1, 1_000, -1)).isZero();
    }

    /**
     * A segment sent at capture time 0 and ACKed at 1 ms begins the round; the last ACK, at 2 ms,
     * covers one sent at 1.5 ms: 3,000 B over max(ACK phase 1 ms, send phase 1.5 ms) = 2,000,000 B/s.
     */
    @Test
    void aSendPhaseFromCaptureTimeZeroCounts() {
        assertThat(rate(MS, 2 * MS, 0, 1_500_000, 3_000, MS)).isEqualTo(2_000_000.0);
    }

    private static double rate(long start, long end, long startSent, long endSent, long delivered, long minRtt) {
        DeliveryRateSampler d = new DeliveryRateSampler();
        SlowStartStats stats = new SlowStartStats();
        stats.minRttNanos = minRtt;
        d.start(startSent);
        d.delivered = delivered;
        d.end(stats, start, end, endSent);
        return stats.maxDeliveryRateBytesPerSecond;
    }
}
