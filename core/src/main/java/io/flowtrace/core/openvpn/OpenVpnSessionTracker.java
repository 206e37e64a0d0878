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
    static final long IDLE_NANOS = 300_000_000_000L;
    private static final long SWEEP_NANOS = 1_000_000_000L;
    /** Sessions kept per UDP flow; a flow that cycles through more reports the oldest early. */
    static final int MAX_SESSIONS_PER_FLOW = 16;

    private static final class Flow {
        final String client;
        final String server;
        final List<OpenVpnSession> sessions = new ArrayList<>(1);
        OpenVpnSession current;
        long lastSeenNanos;

        Flow(String client, String server) {
            this.client = client;
            this.server = server;
        }
    }

    private final OpenVpnWire wire;
    private final IntFunction<String> vantageOfInterface;
    private final SessionListener listener;
    private final Map<String, Flow> flows = new HashMap<>();
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
        if (p.status != DecodeStatus.UDP) {
            return;
        }
        long t = p.timestampNanos;
        String src = new Endpoint(Arrays.copyOf(p.srcAddr, p.addrLength), p.srcPort).toString();
        String dst = new Endpoint(Arrays.copyOf(p.dstAddr, p.addrLength), p.dstPort).toString();
        String vantage = vantageOfInterface.apply(p.interfaceId);
        String key = vantage + '|' + (src.compareTo(dst) < 0 ? src + '|' + dst : dst + '|' + src);
        Flow flow = flows.get(key);
        if (flow == null) {
            boolean srcIsServer = wire.isOpenVpnPort(p.srcPort) && !wire.isOpenVpnPort(p.dstPort)
                    || (wire.isOpenVpnPort(p.srcPort) == wire.isOpenVpnPort(p.dstPort)
                            && OpenVpnOpcode.isServerReset(h.opcode));
            flow = srcIsServer ? new Flow(dst, src) : new Flow(src, dst);
            flows.put(key, flow);
        }
        flow.lastSeenNanos = Math.max(flow.lastSeenNanos, t);
        boolean fromClient = src.equals(flow.client);
        OpenVpnSession s = sessionOf(flow, h, fromClient, vantage, t);
        if (s == null) {
            dataWithoutSession++;
        } else {
            s.onPacket(h, fromClient, t);
        }
        if (lastSweepNanos == Long.MIN_VALUE) {
            lastSweepNanos = t;
        } else if (t - lastSweepNanos >= SWEEP_NANOS) {
            sweep(t);
            lastSweepNanos = t;
        }
    }

    private OpenVpnSession sessionOf(Flow flow, OpenVpnHeader h, boolean fromClient, String vantage, long t) {
        if (h.kind == OpenVpnHeader.Kind.DATA) {
            return flow.current;
        }
        long sid = h.sessionId;
        if (fromClient) {
            for (OpenVpnSession s : flow.sessions) {
                if (s.clientSessionKnown && s.clientSessionId == sid) {
                    return s;
                }
            }
            // a new client session id: a new session (or a capture that began mid-session)
            OpenVpnSession s = start(flow, vantage, t);
            s.clientSessionId = sid;
            s.clientSessionKnown = true;
            return s;
        }
        for (OpenVpnSession s : flow.sessions) {
            if (s.serverSessionKnown && s.serverSessionId == sid) {
                return s;
            }
        }
        OpenVpnSession s = null;
        if (h.ackCount > 0) {
            for (OpenVpnSession c : flow.sessions) {
                if (c.clientSessionKnown && c.clientSessionId == h.remoteSessionId && !c.serverSessionKnown) {
                    s = c;
                }
            }
        }
        if (s == null) {
            s = start(flow, vantage, t);
        }
        s.serverSessionId = sid;
        s.serverSessionKnown = true;
        return s;
    }

    private OpenVpnSession start(Flow flow, String vantage, long t) {
        if (flow.sessions.size() == MAX_SESSIONS_PER_FLOW) {
            listener.onSession(flow.sessions.remove(0));
        }
        OpenVpnSession s = new OpenVpnSession(vantage, flow.client, flow.server, t);
        flow.sessions.add(s);
        flow.current = s;
        sessionsStarted++;
        return s;
    }

    private void sweep(long now) {
        for (Iterator<Flow> it = flows.values().iterator(); it.hasNext();) {
            Flow f = it.next();
            if (now - f.lastSeenNanos >= IDLE_NANOS) {
                f.sessions.forEach(listener::onSession);
                it.remove();
            }
        }
    }

    /** Reports every live session (at the end of a capture), oldest first. */
    public void flush() {
        List<OpenVpnSession> all = new ArrayList<>();
        for (Flow f : flows.values()) {
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
