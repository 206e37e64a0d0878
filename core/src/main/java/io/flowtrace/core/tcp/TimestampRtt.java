package io.flowtrace.core.tcp;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * RTT from TCP timestamps (RFC 7323), pping's method: remember when each TSval this side sent
 * first passed the capture point; when the peer echoes it in TSecr for the first time, the
 * difference is one RTT sample. Later echoes of the same TSval (delayed ACKs, retransmissions) are
 * ignored. TSvals only grow, so pending ones form a sorted ring; a bounded one: when full, the
 * oldest pending value is forgotten.
 */
final class TimestampRtt {
    private static final int CAPACITY = 256;
    /** Grows to CAPACITY on demand: an idle flow keeps a few bytes, a busy one at most 4 KiB. */
    private long[] tsVal = new long[4];

    private long[] seenAt = new long[4];
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
        if (size == tsVal.length && size < CAPACITY) {
            grow();
        }
        if (size == tsVal.length) {
            head = (head + 1) % tsVal.length;
            size--;
        }
        int at = (head + size) % tsVal.length;
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
                head = (head + 1) % tsVal.length;
                size--;
                return sample >= 0 ? sample : -1;
            }
            if (((ecr - v) & 0xffffffffL) < 0x80000000L) { // v is before ecr in 32-bit serial order
                head = (head + 1) % tsVal.length;
                size--;
            } else {
                return -1;
            }
        }
        return -1;
    }

    private void grow() {
        long[] v = new long[tsVal.length * 2];
        long[] t = new long[tsVal.length * 2];
        for (int i = 0; i < size; i++) {
            v[i] = tsVal[(head + i) % tsVal.length];
            t[i] = seenAt[(head + i) % tsVal.length];
        }
        tsVal = v;
        seenAt = t;
        head = 0;
    }

    void write(DataOutput out) throws IOException {
        Varints.write(out, lastVal);
        out.writeShort(size);
        for (int i = 0; i < size; i++) {
            Varints.write(out, tsVal[(head + i) % tsVal.length]);
            Varints.write(out, seenAt[(head + i) % tsVal.length]);
        }
    }

    void read(DataInput in) throws IOException {
        lastVal = Varints.read(in);
        int n = in.readShort();
        if (n < 0 || n > CAPACITY) {
            throw new IOException("corrupt flow state: " + n + " pending timestamps");
        }
        int cap = 4;
        while (cap < n) {
            cap *= 2;
        }
        tsVal = new long[cap];
        seenAt = new long[cap];
        head = 0;
        size = n;
        for (int i = 0; i < n; i++) {
            tsVal[i] = Varints.read(in);
            seenAt[i] = Varints.read(in);
        }
    }
}
