package io.flowtrace.core.conntrack;

/**
 * Parameters of a conntrack event budget.
 *
 * @param windowNanos        the window the rates are per (1 s and 1 min in the job)
 * @param drainLatencyNanos  how long the listener may go without reading (its worst stall)
 * @param requestedRcvbuf    the value the listener passes to SO_RCVBUF(FORCE); conntrackd's
 *                           NetlinkBufferSize default is 2 MiB (it grows to NetlinkBufferSizeMaxGrowth 8 MiB)
 * @param features           what the kernel puts into events (for estimate and truesize)
 */
public record BudgetConfig(long windowNanos, long drainLatencyNanos, int requestedRcvbuf, KernelFeatures features) {

    public static final int CONNTRACKD_DEFAULT_RCVBUF = 2 * 1024 * 1024;
    /** SOCK_MIN_RCVBUF = 2048 + sizeof(struct sk_buff) (include/net/sock.h); 232 B on x86_64. */
    static final int SOCK_MIN_RCVBUF = 2048 + 232;

    public static BudgetConfig defaults() {
        return new BudgetConfig(1_000_000_000L, 100_000_000L, CONNTRACKD_DEFAULT_RCVBUF, KernelFeatures.stock());
    }

    public BudgetConfig withRequestedRcvbuf(int bytes) {
        return new BudgetConfig(windowNanos, drainLatencyNanos, bytes, features);
    }

    public BudgetConfig withDrainLatencyNanos(long nanos) {
        return new BudgetConfig(windowNanos, nanos, requestedRcvbuf, features);
    }

    /** sk_rcvbuf the kernel sets: __sock_set_rcvbuf() doubles the request "for struct sk_buff overhead". */
    public int effectiveRcvbuf() {
        return effectiveRcvbuf(requestedRcvbuf);
    }

    static int effectiveRcvbuf(int requested) {
        int v = Math.min(requested, Integer.MAX_VALUE / 2);
        return Math.max(v * 2, SOCK_MIN_RCVBUF);
    }
}
