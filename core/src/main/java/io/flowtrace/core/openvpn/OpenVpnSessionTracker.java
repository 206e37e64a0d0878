package io.flowtrace.core.openvpn;

import io.flowtrace.core.net.Endpoint;
import io.flowtrace.core.pcap.DecodeStatus;
import io.flowtrace.core.pcap.DecodedPacket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * Routes OpenVPN packets of UDP flows to their sessions and reports every session once, when it
 * goes idle or at the end. A session is the pair of session ids on one UDP flow (one vantage
 * point): the client's id comes with its hard reset, the server's with its answer, whose ACK
 * array names the client's id. Data packets carry no session id: they belong to the flow's
 * latest session.
 *
 * <p>The server is the side on a configured OpenVPN port; when both or neither are, the side
 * that sent the client hard reset is the client. Memory is bounded by the live sessions: idle
 * ones are reported and dropped.
 */
public final class OpenVpnSessionTracker {
    @FunctionalInterface
    public interface SessionListener {
        void onSession(OpenVpnSession session);
    }

    /** A session silent this long is over (OpenVPN's default --ping-restart for clients is 120 s). */
    public static final long IDLE_NANOS = 300_000_000_000L;

    private static final long SWEEP_NANOS = 1_000_000_000L;
    /** Sessions kept per UDP flow; a flow that cycles through more reports the oldest early. */
    static final int MAX_SESSIONS_PER_FLOW = OpenVpnFlow.MAX_SESSIONS;

    private final OpenVpnWire wire;
    private final IntFunction<String> vantageOfInterface;
    private final SessionListener listener;
    private final Map<String, OpenVpnFlow> flows = new HashMap<>();
    private long lastSweepNanos = Long.MIN_VALUE;
    private long sessionsStarted;
    private long dataWithoutSession;

    public OpenVpnSessionTracker(OpenVpnWire wire, IntFunction<String> vantageOfInterface, SessionListener listener) {
        this.wire = wire;
        this.vantageOfInterface = vantageOfInterface;
        this.listener = listener;
    }

    /** Feeds one UDP packet of an OpenVPN port and its decoded header (CONTROL, ACK, DATA or OPAQUE). */
    public void onPacket(DecodedPacket p, OpenVpnHeader h) {
        if (p.status != DecodeStatus.UDP && p.status != DecodeStatus.TCP) {
            return;
        }
        long t = p.timestampNanos;
        String src = new Endpoint(Arrays.copyOf(p.srcAddr, p.addrLength), p.srcPort).toString();
        String dst = new Endpoint(Arrays.copyOf(p.dstAddr, p.addrLength), p.dstPort).toString();
        String key = key(p, src, dst);
        OpenVpnFlow flow = flows.get(key);
        if (flow == null) {
            flow = OpenVpnFlow.open(wire, vantageOfInterface.apply(p.interfaceId), src, p.srcPort, dst, p.dstPort, h);
            flow.tcp = p.status == DecodeStatus.TCP;
            flows.put(key, flow);
        }
        long before = flow.sessionsStarted;
        if (!flow.onPacket(h, src.equals(flow.client), t, listener)) {
            dataWithoutSession++;
        }
        sessionsStarted += flow.sessionsStarted - before;
        if (lastSweepNanos == Long.MIN_VALUE) {
            lastSweepNanos = t;
        } else if (t - lastSweepNanos >= SWEEP_NANOS) {
            sweep(t);
            lastSweepNanos = t;
        }
    }

    private String key(DecodedPacket p, String src, String dst) {
        String vantage = vantageOfInterface.apply(p.interfaceId);
        return (p.status == DecodeStatus.TCP ? "tcp|" : "")
                + vantage
                + '|'
                + (src.compareTo(dst) < 0 ? src + '|' + dst : dst + '|' + src);
    }

    /**
     * A TCP segment of an OpenVPN connection that repeated bytes already framed: a TCP
     * retransmission, counted on the sender's side of the connection's latest session (none before
     * the first session).
     */
    public void onTcpRetransmit(DecodedPacket p) {
        String src = new Endpoint(Arrays.copyOf(p.srcAddr, p.addrLength), p.srcPort).toString();
        String dst = new Endpoint(Arrays.copyOf(p.dstAddr, p.addrLength), p.dstPort).toString();
        OpenVpnFlow flow = flows.get(key(p, src, dst));
        if (flow != null) {
            flow.onTcpRetransmit(src.equals(flow.client));
        }
    }

    private void sweep(long now) {
        for (Iterator<OpenVpnFlow> it = flows.values().iterator(); it.hasNext(); ) {
            OpenVpnFlow f = it.next();
            if (f.idleAt(now)) {
                f.sessions.forEach(listener::onSession);
                it.remove();
            }
        }
    }

    /** Reports every live session (at the end of a capture), oldest first. */
    public void flush() {
        List<OpenVpnSession> all = new ArrayList<>();
        for (OpenVpnFlow f : flows.values()) {
            all.addAll(f.sessions);
        }
        flows.clear();
        all.sort((a, b) -> Long.compare(a.firstSeenNanos(), b.firstSeenNanos()));
        all.forEach(listener::onSession);
    }

    public long sessionsStarted() {
        return sessionsStarted;
    }

    /** Data packets on a flow where no session had started (the capture began mid-session). */
    public long dataWithoutSession() {
        return dataWithoutSession;
    }
}
