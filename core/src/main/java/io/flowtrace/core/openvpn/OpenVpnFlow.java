package io.flowtrace.core.openvpn;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The OpenVPN sessions of one UDP flow at one vantage point: which end is the client, the
 * sessions told apart by their session ids, and the latest one (data packets carry no session
 * id: they belong to it). The offline {@link OpenVpnSessionTracker} keeps one per flow in a map;
 * the job keeps one per Flink key ({@link OpenVpnFlowCodec} writes it to state).
 *
 * <p>The client's session id comes with its hard reset, the server's with its answer, whose ACK
 * array names the client's id. At most {@link #MAX_SESSIONS} sessions are kept; a flow that cycles
 * through more reports the oldest early.
 */
public final class OpenVpnFlow {
    /** Sessions kept per UDP flow; a flow that cycles through more reports the oldest early. */
    public static final int MAX_SESSIONS = 16;

    final String vantage;
    final String client;
    final String server;
    final List<OpenVpnSession> sessions;
    /** Index in {@link #sessions} of the latest session, -1 before the first. */
    int current = -1;

    long lastSeenNanos;
    /** A TCP connection (proto tcp), not a UDP flow. */
    boolean tcp;
    /** Sessions started on this flow, evicted ones included. */
    long sessionsStarted;

    OpenVpnFlow(String vantage, String client, String server, List<OpenVpnSession> sessions) {
        this.vantage = vantage;
        this.client = client;
        this.server = server;
        this.sessions = sessions;
    }

    /**
     * A flow whose first packet went from {@code src} to {@code dst} (both "ip:port") with header
     * {@code first}. The server is the side on a configured OpenVPN port; when both or neither are,
     * the side that sent a server hard reset is the server, else the receiver of this packet.
     */
    public static OpenVpnFlow open(
            OpenVpnWire wire, String vantage, String src, int srcPort, String dst, int dstPort, OpenVpnHeader first) {
        boolean srcPortIsServer = wire.isOpenVpnPort(srcPort);
        boolean srcIsServer = srcPortIsServer && !wire.isOpenVpnPort(dstPort)
                || (srcPortIsServer == wire.isOpenVpnPort(dstPort) && OpenVpnOpcode.isServerReset(first.opcode));
        return srcIsServer
                ? new OpenVpnFlow(vantage, dst, src, new ArrayList<>(1))
                : new OpenVpnFlow(vantage, src, dst, new ArrayList<>(1));
    }

    /**
     * Feeds one decoded packet (CONTROL, ACK, DATA or OPAQUE) sent by the client if
     * {@code fromClient} at {@code t} ns. A session pushed out by {@link #MAX_SESSIONS} goes to
     * {@code evicted}. Returns false for a data packet before any session (the capture began
     * mid-session): it is counted by the caller, not analysed.
     */
    public boolean onPacket(
            OpenVpnHeader h, boolean fromClient, long t, OpenVpnSessionTracker.SessionListener evicted) {
        lastSeenNanos = Math.max(lastSeenNanos, t);
        OpenVpnSession s = sessionOf(h, fromClient, t, evicted);
        if (s == null) {
            return false;
        }
        s.onPacket(h, fromClient, t);
        return true;
    }

    /**
     * proto tcp: a TCP segment sent by the client if {@code fromClient} that repeated bytes already
     * framed (a TCP retransmission, {@link OpenVpnTcpStreams}), counted on the latest session; none
     * before the first session. It does not move {@link #lastSeenNanos()}, as in the offline pass.
     */
    public void onTcpRetransmit(boolean fromClient) {
        if (current >= 0) {
            OpenVpnSession s = sessions.get(current);
            (fromClient ? s.c2s : s.s2c).tcpRetransmits++;
        }
    }

    /** Marks the flow as a TCP connection (proto tcp): its sessions say transport "tcp". Before its first packet. */
    public void carriedOverTcp() {
        tcp = true;
    }

    private OpenVpnSession sessionOf(
            OpenVpnHeader h, boolean fromClient, long t, OpenVpnSessionTracker.SessionListener evicted) {
        if (h.kind == OpenVpnHeader.Kind.DATA) {
            return current < 0 ? null : sessions.get(current);
        }
        long sid = h.sessionId;
        if (fromClient) {
            for (OpenVpnSession s : sessions) {
                if (s.clientSessionKnown && s.clientSessionId == sid) {
                    return s;
                }
            }
            // a new client session id: a new session (or a capture that began mid-session)
            OpenVpnSession s = start(t, evicted);
            s.clientSessionId = sid;
            s.clientSessionKnown = true;
            return s;
        }
        for (OpenVpnSession s : sessions) {
            if (s.serverSessionKnown && s.serverSessionId == sid) {
                return s;
            }
        }
        OpenVpnSession s = null;
        if (h.ackCount > 0) {
            for (OpenVpnSession c : sessions) {
                if (c.clientSessionKnown && c.clientSessionId == h.remoteSessionId && !c.serverSessionKnown) {
                    s = c;
                }
            }
        } else if (h.kind == OpenVpnHeader.Kind.OPAQUE) {
            // tls-crypt hides the ACK array that names the client's id: the server's first packet on
            // this flow answers the latest client session that has no server yet
            for (OpenVpnSession c : sessions) {
                if (c.clientSessionKnown && !c.serverSessionKnown) {
                    s = c;
                }
            }
        }
        if (s == null) {
            s = start(t, evicted);
        }
        s.serverSessionId = sid;
        s.serverSessionKnown = true;
        return s;
    }

    private OpenVpnSession start(long t, OpenVpnSessionTracker.SessionListener evicted) {
        if (sessions.size() == MAX_SESSIONS) {
            evicted.onSession(sessions.remove(0));
        }
        OpenVpnSession s = new OpenVpnSession(vantage, client, server, t);
        s.tcp = tcp;
        sessions.add(s);
        current = sessions.size() - 1;
        sessionsStarted++;
        return s;
    }

    public String vantage() {
        return vantage;
    }

    /** The client's endpoint, "ip:port". */
    public String client() {
        return client;
    }

    public String server() {
        return server;
    }

    /** Latest capture time of any packet of the flow (ns). */
    public long lastSeenNanos() {
        return lastSeenNanos;
    }

    /**
     * The one idle rule of OpenVPN sessions, for the offline tracker's sweep and the job's timer alike:
     * the flow and its sessions end at its last packet + {@link OpenVpnSessionTracker#IDLE_NANOS} (ns).
     */
    public long idleDeadlineNanos() {
        return lastSeenNanos + OpenVpnSessionTracker.IDLE_NANOS;
    }

    /** True once {@code nowNanos} has reached {@link #idleDeadlineNanos()}: the flow's sessions are over. */
    public boolean idleAt(long nowNanos) {
        return nowNanos >= idleDeadlineNanos();
    }

    /** The live sessions, oldest first. */
    public List<OpenVpnSession> sessions() {
        return Collections.unmodifiableList(sessions);
    }
}
