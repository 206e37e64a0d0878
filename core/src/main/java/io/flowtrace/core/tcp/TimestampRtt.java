package io.flowtrace.core.tcp;

/**
 * RTT from TCP timestamps (RFC 7323), pping's method: remember when each TSval this side sent
 * first passed the capture point; when the peer echoes it in TSecr for the first time, the
 * difference is one RTT sample. Later echoes of the same TSval (delayed ACKs, retransmissions) are
 * ignored. TSvals only grow, so pending ones form a sorted ring; a bounded one: when full, the
 * oldest pending value is forgotten.
 */
final class TimestampRtt {
    private static final int CAPACITY = 256;
    private final long[] tsVal = new long[CAPACITY];
    private final long[] seenAt = new long[CAPACITY];
    private int head;
    private int size;
    private long lastVal = -1;

    /** This side sent {@code val} at {@code nanos}. */
    void sent(long val, long nanos) {
        if (val == lastVal) {
            return; // not the first packet with this TSval
        }
        if (lastVal >= 0 && ((val - lastVal) & 0xffffffffL) > 0x7fffffffL) {
            return; // older than the newest (reordered or retransmitted): keep the first sighting only
        }
        lastVal = val;
        if (size == CAPACITY) {
            head = (head + 1) % CAPACITY;
            size--;
        }
        int at = (head + size) % CAPACITY;
        tsVal[at] = val;
        seenAt[at] = nanos;
        size++;
    }

    /**
     * The peer echoed {@code ecr} at {@code nanos}.
     *
     * @return the RTT sample in nanoseconds, or -1 when this is not a first echo of a pending TSval
     */
    long echoed(long ecr, long nanos) {
        // drop pending values older than ecr: they will never be echoed first any more
        while (size > 0) {
            long v = tsVal[head];
            if (v == ecr) {
                long sample = nanos - seenAt[head];
                head = (head + 1) % CAPACITY;
                size--;
                return sample >= 0 ? sample : -1;
            }
            if (((ecr - v) & 0xffffffffL) < 0x80000000L) { // v is before ecr in 32-bit serial order
                head = (head + 1) % CAPACITY;
                size--;
            } else {
                return -1;
            }
        }
        return -1;
    }
}
