package io.flowtrace.core.conntrack;

/**
 * Distribution of message sizes in fixed memory. Netlink messages are 4-byte aligned
 * (NLMSG_ALIGN/NLA_ALIGN), so 4-byte buckets up to 8 KiB are exact; larger sizes (never seen for
 * conntrack events) count in one overflow bucket and only move min/max/avg exactly.
 */
final class SizeHistogram {
    private static final int LIMIT = 8192;
    private final long[] counts = new long[LIMIT / 4 + 1];
    private long n;
    private long sum;
    private int min = Integer.MAX_VALUE;
    private int max;

    void add(int size) {
        counts[Math.min(size, LIMIT) / 4]++;
        n++;
        sum += size;
        min = Math.min(min, size);
        max = Math.max(max, size);
    }

    long count() {
        return n;
    }

    long sum() {
        return sum;
    }

    int min() {
        return n == 0 ? 0 : min;
    }

    int max() {
        return max;
    }

    double avg() {
        return n == 0 ? 0 : (double) sum / n;
    }

    /** Smallest size s with at least q of the messages at or below s (nearest-rank). */
    int quantile(double q) {
        if (n == 0) {
            return 0;
        }
        long rank = (long) Math.ceil(q * n);
        long seen = 0;
        for (int i = 0; i < counts.length; i++) {
            seen += counts[i];
            if (seen >= rank) {
                return i == counts.length - 1 ? max : i * 4;
            }
        }
        return max;
    }
}
