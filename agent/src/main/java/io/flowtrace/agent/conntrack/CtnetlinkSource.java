package io.flowtrace.agent.conntrack;

import com.sun.jna.LastErrorException;
import io.flowtrace.agent.os.LibC;
import io.flowtrace.core.conntrack.CtnetlinkParseException;
import io.flowtrace.core.conntrack.CtnetlinkParser;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.function.BooleanSupplier;

/**
 * Reads conntrack events straight from the kernel: a NETLINK_NETFILTER socket bound to the groups
 * NFNLGRP_CONNTRACK_NEW|UPDATE|DESTROY (1..3, bitmask 0x7), in the network namespace of the calling
 * thread. Each recv() is one broadcast skb = one message, so the parsed event carries its exact
 * wire size. ENOBUFS from recv() is counted and reported, then reading goes on (the kernel clears
 * the congestion once the queue is drained, netlink_rcv_wake()).
 *
 * <p>I/O only: parsing is {@link CtnetlinkParser}'s.
 */
public final class CtnetlinkSource implements AutoCloseable {
    public static final int GROUPS_NEW_UPDATE_DESTROY = 0x7;
    /** Room for any single event: the kernel's own estimate stays below 1 KiB, NLMSG_GOODSIZE is 8 KiB. */
    private static final int RECV_BUFFER = 64 * 1024;

    private final int fd;
    private final byte[] buf = new byte[RECV_BUFFER];
    private final CtnetlinkParser parser = new CtnetlinkParser();
    private final int effectiveRcvbuf;
    private long messages;
    private long bytes;
    private long enobufs;
    private volatile boolean closed;

    private CtnetlinkSource(int fd, int effectiveRcvbuf) {
        this.fd = fd;
        this.effectiveRcvbuf = effectiveRcvbuf;
    }

    /**
     * Opens and binds the socket. {@code requestedRcvbuf} goes to SO_RCVBUFFORCE (needs CAP_NET_ADMIN;
     * falls back to SO_RCVBUF, capped by net.core.rmem_max); the kernel doubles it.
     */
    public static CtnetlinkSource open(int requestedRcvbuf, int groups) throws IOException {
        LibC c = LibC.INSTANCE;
        int fd;
        try {
            fd = c.socket(LibC.AF_NETLINK, LibC.SOCK_RAW | LibC.SOCK_CLOEXEC, LibC.NETLINK_NETFILTER);
        } catch (LastErrorException e) {
            throw new IOException("socket(AF_NETLINK, NETLINK_NETFILTER): errno " + e.getErrorCode(), e);
        }
        try {
            try {
                c.setsockopt(fd, LibC.SOL_SOCKET, LibC.SO_RCVBUFFORCE, int32(requestedRcvbuf), 4);
            } catch (LastErrorException e) {
                c.setsockopt(fd, LibC.SOL_SOCKET, LibC.SO_RCVBUF, int32(requestedRcvbuf), 4);
            }
            // struct timeval {long tv_sec; long tv_usec;}: 0.5 s so close() is noticed by a blocked reader
            byte[] tv = ByteBuffer.allocate(16)
                    .order(ByteOrder.nativeOrder())
                    .putLong(0)
                    .putLong(500_000)
                    .array();
            c.setsockopt(fd, LibC.SOL_SOCKET, LibC.SO_RCVTIMEO, tv, 16);
            // struct sockaddr_nl {u16 nl_family; u16 nl_pad; u32 nl_pid; u32 nl_groups;}
            byte[] sa = ByteBuffer.allocate(12)
                    .order(ByteOrder.nativeOrder())
                    .putShort((short) LibC.AF_NETLINK)
                    .putShort((short) 0)
                    .putInt(0)
                    .putInt(groups)
                    .array();
            c.bind(fd, sa, sa.length);
            byte[] out = new byte[4];
            c.getsockopt(fd, LibC.SOL_SOCKET, LibC.SO_RCVBUF, out, new int[] {4});
            return new CtnetlinkSource(
                    fd, ByteBuffer.wrap(out).order(ByteOrder.nativeOrder()).getInt());
        } catch (LastErrorException e) {
            c.close(fd);
            throw new IOException("setting up the ctnetlink socket: errno " + e.getErrorCode(), e);
        }
    }

    /**
     * Waits up to the receive timeout for one message and delivers it. Returns false on timeout or
     * ENOBUFS, true when a message was read (parsed or reported malformed).
     */
    public boolean pollOnce(ConntrackEventSink sink) throws IOException {
        long n;
        try {
            n = LibC.INSTANCE.recv(fd, buf, buf.length, 0);
        } catch (LastErrorException e) {
            return switch (e.getErrorCode()) {
                case LibC.EAGAIN, LibC.EINTR -> false;
                case LibC.ENOBUFS -> {
                    enobufs++;
                    sink.enobufs(enobufs);
                    yield false;
                }
                default -> throw new IOException("recv on ctnetlink socket: errno " + e.getErrorCode(), e);
            };
        }
        messages++;
        bytes += n;
        try {
            sink.event(parser.parse(buf, 0, (int) n, System.currentTimeMillis() * 1_000_000L));
        } catch (CtnetlinkParseException e) {
            sink.malformed(e);
        }
        return true;
    }

    /** Reads until {@code keepGoing} says stop or the source is closed. */
    public void run(ConntrackEventSink sink, BooleanSupplier keepGoing) throws IOException {
        while (!closed && keepGoing.getAsBoolean()) {
            pollOnce(sink);
        }
    }

    public long messages() {
        return messages;
    }

    public long bytes() {
        return bytes;
    }

    public long enobufs() {
        return enobufs;
    }

    /** sk_rcvbuf as getsockopt(SO_RCVBUF) reports it (twice the request). */
    public int effectiveRcvbuf() {
        return effectiveRcvbuf;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            LibC.INSTANCE.close(fd);
        }
    }

    private static byte[] int32(int v) {
        return ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(v).array();
    }
}
