package io.flowtrace.core.conntrack;

/**
 * Incremental event-size budget for one vantage and one window (docs/design.md, Conntrack sizing): add events
 * as they come, read {@link #report()} when the window closes. Memory is fixed (histogram, rings),
 * whatever the event rate.
 *
 * <p>Formulas: bytes/s = Σ exact / window; truesize/s = Σ truesize / window; waste = 1 − Σ exact /
 * Σ estimate; buffer needed = max over intervals of the drain latency of Σ truesize; recommended
 * SO_RCVBUF = ⌈needed / 2⌉ (__sock_set_rcvbuf() doubles); predicted drops replay the kernel's
 * admission rule ({@link ReceiveQueueModel}) against the configured buffer.
 */
public final class EventSizeBudget {
    private static final long MS10 = 10_000_000L;
    private static final long MS100 = 100_000_000L;

    private final String vantage;
    private final long windowStart;
    private final BudgetConfig config;
    private final NetlinkSizer sizer;
    private final SizeHistogram sizes = new SizeHistogram();
    private final long[] byType = new long[EventType.values().length];
    private final BurstPeak bytes10 = new BurstPeak(MS10);
    private final BurstPeak bytes100 = new BurstPeak(MS100);
    private final BurstPeak true10 = new BurstPeak(MS10);
    private final BurstPeak true100 = new BurstPeak(MS100);
    private final SlidingPeak stall;
    private final ReceiveQueueModel queue;
    private long estimateSum;
    private long truesizeSum;
    private long observedEnobufs = -1;

    public EventSizeBudget(String vantage, long windowStartNanos, BudgetConfig config, NetlinkSizer sizer) {
        this.vantage = vantage;
        this.windowStart = windowStartNanos;
        this.config = config;
        this.sizer = sizer;
        this.stall = new SlidingPeak(config.drainLatencyNanos());
        this.queue = new ReceiveQueueModel(config.effectiveRcvbuf(), config.drainLatencyNanos());
    }

    public EventSizeBudget(String vantage, long windowStartNanos, BudgetConfig config) {
        this(vantage, windowStartNanos, config, new NetlinkSizer());
    }

    /** Adds an event that has an attribute list (raw, or text with the inferred list). */
    public void add(ConntrackMessage e) {
        SkbCharge c = sizer.charge(e, config.features());
        add(e.timeNanos(), e.type(), sizer.exactSize(e), c.requested(), c.truesize());
    }

    public void add(long timeNanos, EventType type, int exactBytes, int estimatedBytes, int truesize) {
        byType[type.ordinal()]++;
        sizes.add(exactBytes);
        estimateSum += estimatedBytes;
        truesizeSum += truesize;
        bytes10.add(timeNanos, exactBytes);
        bytes100.add(timeNanos, exactBytes);
        true10.add(timeNanos, truesize);
        true100.add(timeNanos, truesize);
        stall.add(timeNanos, truesize);
        queue.offer(timeNanos, truesize);
    }

    /** ENOBUFS the source itself got from recv() (errno 105): data, not an error. */
    public void addObservedEnobufs(int count) {
        observedEnobufs = Math.max(observedEnobufs, 0) + count;
    }

    public BudgetReport report() {
        double seconds = config.windowNanos() / 1e9;
        long needed = stall.peak();
        int effective = config.effectiveRcvbuf();
        BudgetReport.EnobufsRisk risk = queue.drops() > 0 || needed > effective
                ? BudgetReport.EnobufsRisk.OVERFLOW
                : needed * 2 > effective ? BudgetReport.EnobufsRisk.TIGHT : BudgetReport.EnobufsRisk.NONE;
        return new BudgetReport(
                vantage,
                windowStart,
                config.windowNanos(),
                byType[EventType.NEW.ordinal()],
                byType[EventType.UPDATE.ordinal()],
                byType[EventType.DESTROY.ordinal()],
                sizes.count() / seconds,
                sizes.sum() / seconds,
                truesizeSum / seconds,
                sizes.min(),
                sizes.avg(),
                sizes.quantile(0.99),
                sizes.max(),
                estimateSum == 0 ? 0 : 1.0 - (double) sizes.sum() / estimateSum,
                bytes10.peak(),
                bytes100.peak(),
                true10.peak(),
                true100.peak(),
                config.drainLatencyNanos(),
                needed,
                (needed + 1) / 2,
                effective,
                risk,
                queue.drops(),
                queue.enobufs(),
                observedEnobufs);
    }
}
