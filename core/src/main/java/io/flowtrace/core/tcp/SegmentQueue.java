package io.flowtrace.core.tcp;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * The data a sender has put on the wire that the receiver has not cumulatively ACKed yet, as
 * sorted, non-overlapping segments [start, end) in 64-bit relative sequence space. This is the
 * structure tcptrace keeps as a linked list of every segment ever seen (docs/design.md, "tcptrace's quadratic IsRTO": IsRTO walked it
 * per packet, O(n²) on long lossy flows). Here it is a ring of primitive arrays: appends at the
 * tail and cumulative-ACK pruning at the head are O(1) amortised, lookups are binary searches
 * (O(log n)), and its size is bounded by the send window, not by the flow's length. Only a hole
 * filled in the middle (reordering, or a retransmission of data the capture never saw) shifts
 * entries, with one arraycopy.
 */
final class SegmentQueue {
    /** Hard cap on segments held, whatever the configuration (and the most a stored state may hold). */
    static final int MAX_SEGMENTS = AnalyzerConfig.MAX_SEGMENTS_PER_DIRECTION;

    private static final int INITIAL = 4;

    private long[] start = new long[INITIAL];
    private long[] end = new long[INITIAL];
    private long[] firstSent = new long[INITIAL];
    private long[] lastSent = new long[INITIAL];
    private int[] transmissions = new int[INITIAL];
    private int[] ipId = new int[INITIAL];
    private boolean[] sacked = new boolean[INITIAL];
    /** Physical index of logical 0; capacity is a power of two, so physical = (head + i) & mask. */
    private int head;

    private int mask = INITIAL - 1;
    private int size;
    private long sackedBytes;
    private long overflowDrops;
    /** Segments held at most ({@link AnalyzerConfig#maxSegmentsPerDirection}); beyond it the oldest is dropped and counted. */
    private int limit = MAX_SEGMENTS;

    /** Set by {@link #ackTo}: the highest segment the ACK fully covered (for Karn's rule). */
    long lastAckedSent;
    /** Transmissions of that segment, 0 when the ACK covered no whole segment. */
    int lastAckedTransmissions;

    long lastAckedEnd;
    /** Some segment the ACK covered was sent more than once, or had been SACKed before (its delivery time is unknown). */
    boolean ackCoveredAmbiguous;

    private int p(int i) {
        return (head + i) & mask;
    }

    int size() {
        return size;
    }

    long start(int i) {
        return start[p(i)];
    }

    long end(int i) {
        return end[p(i)];
    }

    long firstSent(int i) {
        return firstSent[p(i)];
    }

    int transmissions(int i) {
        return transmissions[p(i)];
    }

    int ipId(int i) {
        return ipId[p(i)];
    }

    boolean sacked(int i) {
        return sacked[p(i)];
    }

    long sackedBytes() {
        return sackedBytes;
    }

    long overflowDrops() {
        return overflowDrops;
    }

    /**
     * Sets the most segments held (1 to {@link #MAX_SEGMENTS}). A queue read from a state written under a
     * higher limit keeps its segments until the next insert, which drops the oldest down to the limit.
     */
    void limit(int segments) {
        if (segments < 1 || segments > MAX_SEGMENTS) {
            throw new IllegalArgumentException("segment limit " + segments);
        }
        limit = segments;
    }

    /** Logical index of the last segment whose start ≤ seq, or -1. */
    int floor(long seq) {
        int lo = 0;
        int hi = size - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (start[p(mid)] <= seq) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    /** Appends a segment beyond every held one. */
    void append(long s, long e, long timeNanos, int id) {
        insert(size, s, e, timeNanos, id, 1);
    }

    /** Inserts at logical index {@code at}, shifting later segments up by one. */
    void insert(int at, long s, long e, long timeNanos, int id, int tx) {
        while (size >= limit) {
            removeHead(1);
            overflowDrops++;
            at = Math.max(0, at - 1);
        }
        if (size == start.length) {
            grow();
        }
        for (int i = size; i > at; i--) {
            int to = p(i);
            int from = p(i - 1);
            start[to] = start[from];
            end[to] = end[from];
            firstSent[to] = firstSent[from];
            lastSent[to] = lastSent[from];
            transmissions[to] = transmissions[from];
            ipId[to] = ipId[from];
            sacked[to] = sacked[from];
        }
        int q = p(at);
        start[q] = s;
        end[q] = e;
        firstSent[q] = timeNanos;
        lastSent[q] = timeNanos;
        transmissions[q] = tx;
        ipId[q] = id;
        sacked[q] = false;
        size++;
    }

    /** Records another transmission of segment i. */
    void retransmitted(int i, long timeNanos, int id) {
        int q = p(i);
        transmissions[q]++;
        lastSent[q] = timeNanos;
        ipId[q] = id;
    }

    /** Removes everything below the cumulative ACK; a segment the ACK cuts is trimmed. */
    void ackTo(long ack) {
        lastAckedTransmissions = 0;
        ackCoveredAmbiguous = false;
        int n = 0;
        while (n < size && end[p(n)] <= ack) {
            int q = p(n);
            ackCoveredAmbiguous |= transmissions[q] > 1 || sacked[q];
            lastAckedSent = lastSent[q];
            lastAckedTransmissions = transmissions[q];
            lastAckedEnd = end[q];
            n++;
        }
        removeHead(n);
        if (size > 0 && start[head] < ack) {
            if (sacked[head]) {
                sackedBytes -= ack - start[head];
            }
            start[head] = ack;
        }
    }

    /** Marks held segments that lie entirely inside [left, right) as SACKed (RFC 2018). */
    void sack(long left, long right) {
        int i = floor(left);
        if (i < 0 || end[p(i)] <= left) {
            i++;
        }
        for (; i < size && start[p(i)] < right; i++) {
            int q = p(i);
            if (!sacked[q] && start[q] >= left && end[q] <= right) {
                sacked[q] = true;
                sackedBytes += end[q] - start[q];
            }
        }
    }

    private void removeHead(int n) {
        for (int i = 0; i < n; i++) {
            int q = p(i);
            if (sacked[q]) {
                sackedBytes -= end[q] - start[q];
            }
        }
        head = p(n);
        size -= n;
    }

    private void grow() {
        int cap = start.length * 2;
        start = unroll(start, cap);
        end = unroll(end, cap);
        firstSent = unroll(firstSent, cap);
        lastSent = unroll(lastSent, cap);
        int[] tx = new int[cap];
        int[] ids = new int[cap];
        boolean[] sk = new boolean[cap];
        for (int i = 0; i < size; i++) {
            tx[i] = transmissions[p(i)];
            ids[i] = ipId[p(i)];
            sk[i] = sacked[p(i)];
        }
        transmissions = tx;
        ipId = ids;
        sacked = sk;
        head = 0;
        mask = cap - 1;
    }

    private long[] unroll(long[] a, int cap) {
        long[] b = new long[cap];
        for (int i = 0; i < size; i++) {
            b[i] = a[p(i)];
        }
        return b;
    }

    void write(DataOutput out) throws IOException {
        Varints.write(out, size);
        Varints.write(out, sackedBytes);
        Varints.write(out, overflowDrops);
        for (int i = 0; i < size; i++) {
            int q = p(i);
            Varints.write(out, start[q]);
            Varints.write(out, end[q]);
            Varints.write(out, firstSent[q]);
            Varints.write(out, lastSent[q]);
            Varints.write(out, transmissions[q]);
            Varints.write(out, ipId[q]);
            out.writeBoolean(sacked[q]);
        }
    }

    void read(DataInput in) throws IOException {
        int n = (int) Varints.read(in);
        if (n < 0 || n > MAX_SEGMENTS) {
            throw new IOException("corrupt flow state: " + n + " segments");
        }
        sackedBytes = Varints.read(in);
        overflowDrops = Varints.read(in);
        int cap = INITIAL;
        while (cap < n) {
            cap *= 2;
        }
        start = new long[cap];
        end = new long[cap];
        firstSent = new long[cap];
        lastSent = new long[cap];
        transmissions = new int[cap];
        ipId = new int[cap];
        sacked = new boolean[cap];
        head = 0;
        mask = cap - 1;
        size = n;
        for (int i = 0; i < n; i++) {
            start[i] = Varints.read(in);
            end[i] = Varints.read(in);
            firstSent[i] = Varints.read(in);
            lastSent[i] = Varints.read(in);
            transmissions[i] = (int) Varints.read(in);
            ipId[i] = (int) Varints.read(in);
            sacked[i] = in.readBoolean();
        }
    }
}
