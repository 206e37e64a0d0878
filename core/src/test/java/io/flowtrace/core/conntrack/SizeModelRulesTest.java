package io.flowtrace.core.conntrack;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The sizing models' rules on hand-made inputs whose results are worked out here, from the kernel
 * rule cited at each test or from the definition (each one a mutant that survived the recorded
 * cases: docs/metrics.md, "Mutation scores"). The recorded cases (EventSizeBudgetTest,
 * NetlinkSizerTest) hold one message size, one burst and one buffer each, so ties, window edges and
 * a second drain period never occur there.
 */
class SizeModelRulesTest {
    private static final long MS = 1_000_000L;

    /** Nearest-rank quantiles (the smallest size with at least q of the messages at or below it). */
    @Test
    void histogramCountsAverageAndNearestRankQuantiles() {
        SizeHistogram h = new SizeHistogram();
        for (int size : new int[] {300, 100, 200, 8292, 200}) {
            h.add(size);
        }
        // sorted: 100 200 200 300 8292 (8292 is past the 8 KiB buckets: only min/max/avg exact)
        assertThat(h.count()).isEqualTo(5);
        assertThat(h.avg()).isEqualTo((100 + 200 + 200 + 300 + 8292) / 5.0);
        assertThat(h.min()).isEqualTo(100);
        assertThat(h.max()).isEqualTo(8292);
        // rank = ceil(q * 5): 0.2 -> 1st, 0.4 -> 2nd, 0.6 -> 3rd (a tie with the 2nd), 0.8 -> 4th, 0.9 -> 5th
        assertThat(new int[] {h.quantile(0.2), h.quantile(0.4), h.quantile(0.6), h.quantile(0.8), h.quantile(0.9)})
                .containsExactly(100, 200, 200, 300, 8292);
        SizeHistogram empty = new SizeHistogram();
        assertThat(new double[] {empty.count(), empty.avg(), empty.min(), empty.quantile(0.99)})
                .containsOnly(0.0);
    }

    /**
     * A 3 ms interval is three 1 ms buckets; the peak is the largest sum of events in any three
     * consecutive milliseconds, and an event older than that behind the newest is ignored.
     */
    @Test
    void slidingPeakIsTheLargestSumOverAnyThreeMilliseconds() {
        SlidingPeak p = new SlidingPeak(3 * MS);
        p.add(500_000, 10); // ms 0
        p.add(1_200_000, 20); // ms 1
        p.add(2_900_000, 30); // ms 2: ms 0-2 hold 60
        assertThat(p.peak()).isEqualTo(60);
        p.add(3_000_000, 5); // ms 3: ms 1-3 hold 55
        p.add(7_000_000, 1); // ms 7: ms 5-7 hold 1
        p.add(5_500_000, 100); // ms 5, inside ms 5-7: 101
        assertThat(p.peak()).isEqualTo(101);
        p.add(4_999_999, 1000); // ms 4: outside ms 5-7, ignored
        p.add(7_100_000, 1); // ms 5-7 hold 102
        assertThat(p.peak()).isEqualTo(102);
        // 2.5 ms rounds up to three buckets: ms 0 and ms 2 are within one interval
        SlidingPeak q = new SlidingPeak(2_500_000);
        q.add(0, 7);
        q.add(2_000_000, 8);
        assertThat(q.peak()).isEqualTo(15);
    }

    /**
     * netlink_broadcast_deliver(): queued when rmem + truesize <= rcvbuf or the queue is empty, and
     * the socket is not congested; the first drop of an episode is the ENOBUFS recv() reports; a
     * read that empties the queue (each 10 ms drain period, counted from the first event) clears it.
     */
    @Test
    void receiveQueueAdmitsUpToTheBufferThenDropsUntilTheNextDrain() {
        ReceiveQueueModel q = new ReceiveQueueModel(1000, 10 * MS);
        q.offer(3 * MS, 400); // queued 400
        q.offer(4 * MS, 600); // 1000 <= 1000: queued
        q.offer(5 * MS, 100); // 1100: dropped, congested, ENOBUFS 1
        q.offer(8 * MS, 1); // still congested (drains at 13 ms): dropped
        q.offer(13 * MS, 2000); // drained; an empty queue takes any size
        q.offer(14 * MS, 10); // 2010: dropped, ENOBUFS 2
        assertThat(new long[] {q.accepted(), q.drops(), q.enobufs(), q.maxQueued()})
                .containsExactly(3, 3, 2, 2000);
    }

    /** kmalloc_size_roundup() (mm/slab_common.c): a size class's own size stays; past 8 KiB, pages by order. */
    @Test
    void kmallocRoundsUpToItsClassesThenToPowerOfTwoPages() {
        assertThat(new int[] {
                    SkbAllocator.kmallocSizeRoundup(512),
                    SkbAllocator.kmallocSizeRoundup(513),
                    SkbAllocator.kmallocSizeRoundup(8192),
                    SkbAllocator.kmallocSizeRoundup(8193),
                    SkbAllocator.kmallocSizeRoundup(16384),
                    SkbAllocator.kmallocSizeRoundup(16385)
                })
                .containsExactly(512, 1024, 8192, 16384, 16384, 32768);
    }

    /**
     * SKB_HEAD_ALIGN(256) = 256 + 320 = 576 fits skbuff_small_head (576) exactly; netlink_trim()
     * trims when (end - tail) * 2 >= truesize. nlmsg_new(1008): nlmsg_total_size 1024, head
     * SKB_HEAD_ALIGN(1024) = 1344 rounded to 2048, end 2048 - 320 = 1728, truesize 1728 + 256 + 320 =
     * 2304. A 576-byte message leaves 1152 free: 1152 * 2 = 2304, trimmed to a head for 576 bytes
     * (896 rounded to 1024), truesize 2304 + (1024 - 320) - 1728 = 1280. At 577 bytes it is not trimmed.
     */
    @Test
    void aHeadThatFitsTheSmallCacheExactlyAndATrimExactlyAtHalfTheTruesize() {
        SkbAllocator a = SkbAllocator.x86_64();
        assertThat(a.headObject(256)).isEqualTo(576);
        assertThat(a.charge(1008, 576)).isEqualTo(new SkbCharge(1024, 1024, 2304, true, 1280));
        assertThat(a.charge(1008, 577)).isEqualTo(new SkbCharge(1024, 2048, 2304, false, 2304));
    }

    /**
     * Over a 10 s window, two events 50 ms apart of 100 and 300 bytes, estimated at 500 and charged
     * 1280 each, with SO_RCVBUF 1280 (the kernel doubles it: 2560) and a 100 ms drain latency: rates
     * per second, waste 1 - 400 / 1000, bursts (each event alone in its 10 ms window, both in one of
     * 100 ms), buffer needed 2560 (both within 100 ms), recommended ceil(2560 / 2) = 1280, no drop
     * (2560 <= 2560). Risk: overflow when drops are predicted or the need exceeds the buffer, tight
     * when twice the need exceeds it: here 2560 is not above 2560 but 5120 is, so tight; one event
     * alone needs 1280, and 2 x 1280 is not above 2560: none.
     */
    @Test
    void reportOfTwoEventsInATenSecondWindow() {
        BudgetConfig cfg = new BudgetConfig(10_000 * MS, 100 * MS, 1280, KernelFeatures.stock());
        EventSizeBudget b = new EventSizeBudget("v", 0, cfg);
        b.add(0, EventType.NEW, 100, 500, 1280);
        b.add(50 * MS, EventType.DESTROY, 300, 500, 1280);
        BudgetReport r = b.report();
        assertThat(r.effectiveRcvbuf()).isEqualTo(2560);
        assertThat(new double[] {r.eventsPerSecond(), r.bytesPerSecond(), r.truesizeBytesPerSecond()})
                .containsExactly(2 / 10.0, 400 / 10.0, 2560 / 10.0);
        assertThat(r.wasteRatio()).isEqualTo(1 - 400 / 1000.0);
        assertThat(new long[] {r.peakBytes10ms(), r.peakBytes100ms(), r.peakTruesize10ms(), r.peakTruesize100ms()})
                .containsExactly(300, 400, 1280, 2560);
        assertThat(new long[] {r.bufferNeeded(), r.recommendedRcvbuf(), r.predictedDrops()})
                .containsExactly(2560, 1280, 0);
        assertThat(r.risk()).isEqualTo(BudgetReport.EnobufsRisk.TIGHT);
        EventSizeBudget one = new EventSizeBudget("v", 0, cfg);
        one.add(0, EventType.NEW, 100, 500, 1280);
        assertThat(one.report().risk()).isEqualTo(BudgetReport.EnobufsRisk.NONE);
    }
}
