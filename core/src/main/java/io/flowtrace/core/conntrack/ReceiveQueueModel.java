package io.flowtrace.core.conntrack;

/**
 * A listener socket that reads everything once per drain interval, replaying the kernel's admission
 * rule for each event: netlink_broadcast_deliver() (net/netlink/af_netlink.c) queues the skb when
 * {@code rmem + truesize <= sk_rcvbuf} (or the queue is empty) and the socket is not
 * NETLINK_S_CONGESTED; otherwise netlink_overrun() drops it, and only the first drop of a congested
 * episode sets sk_err = ENOBUFS (what recv() reports). Congestion clears when a read empties the queue
 * (netlink_rcv_wake()). The drain clock starts at the first event: the listener stalls as the burst begins.
 */
final class ReceiveQueueModel {
    private final int rcvbuf;
    private final long drainNanos;
    private long phaseStart = Long.MIN_VALUE;
    private long period = Long.MIN_VALUE;
    private long queued;
    private boolean congested;
    private long accepted;
    private long drops;
    private long enobufs;
    private long maxQueued;

    ReceiveQueueModel(int rcvbuf, long drainNanos) {
        this.rcvbuf = rcvbuf;
        this.drainNanos = Math.max(1, drainNanos);
    }

    void offer(long timeNanos, int truesize) {
        if (phaseStart == Long.MIN_VALUE) {
            phaseStart = timeNanos;
        }
        long p = Math.floorDiv(timeNanos - phaseStart, drainNanos);
        if (p != period) {
            period = p;
            queued = 0;
            congested = false;
        }
        long rmem = queued + truesize;
        if ((rmem == truesize || rmem <= rcvbuf) && !congested) {
            queued = rmem;
            accepted++;
            maxQueued = Math.max(maxQueued, queued);
        } else {
            drops++;
            if (!congested) {
                congested = true;
                enobufs++;
            }
        }
    }

    long accepted() {
        return accepted;
    }

    long drops() {
        return drops;
    }

    long enobufs() {
        return enobufs;
    }

    long maxQueued() {
        return maxQueued;
    }
}
