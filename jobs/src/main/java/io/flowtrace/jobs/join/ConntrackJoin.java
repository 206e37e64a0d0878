package io.flowtrace.jobs.join;

import java.util.ArrayList;
import java.util.List;

/**
 * The pure rules of the conntrack ↔ flow join (no Flink): join keys, merging the events of one
 * conntrack entry, which flow instance an entry belongs to, the joined row, and when state expires.
 * {@link ConntrackJoinFunction} only moves these in and out of keyed state and keeps time.
 *
 * <p>Key: the agent id plus the two endpoints in canonical (sorted) order. The capture and the
 * conntrack reader must run under the same agent id (one host; namespaces are interfaces of it). A
 * conntrack entry is registered under its original tuple and, when NAT makes it different, under its
 * reply tuple too: a capture on the initiator's side of the NAT sees the original tuple, one on the
 * server's side sees the reply tuple reversed.
 *
 * <p>Match: same key, the flow's endpoints are the original or the reply tuple (either direction:
 * the client of a flow whose handshake was not seen is a guess), and the conntrack lifetime overlaps
 * the flow's packets within a slack (port reuse yields several entries and instances per key).
 */
public final class ConntrackJoin {
    private ConntrackJoin() {}

    public static String key(String agentId, String a, String b) {
        return a.compareTo(b) <= 0 ? agentId + "|" + a + "|" + b : agentId + "|" + b + "|" + a;
    }

    public static String key(FlowView f) {
        return key(f.agentId, f.client, f.server);
    }

    /** One copy of the event per key: the original tuple's and, under NAT, the reply tuple's. */
    public static List<CtFacts> keys(CtFacts event) {
        List<CtFacts> out = new ArrayList<>(2);
        CtFacts orig = event.copy();
        orig.joinKey = key(event.agentId, event.origSrc, event.origDst);
        out.add(orig);
        String reply = key(event.agentId, event.replySrc, event.replyDst);
        if (!reply.equals(orig.joinKey)) {
            CtFacts r = event.copy();
            r.joinKey = reply;
            out.add(r);
        }
        return out;
    }

    /**
     * The entry after {@code event} (same {@link CtFacts#entryId}): tuples and status from the
     * latest event, the TCP state from the latest event that has one, start and counters once
     * known, destroyed for ever after a DESTROY. Events may arrive out of order (they are spread
     * over Kafka partitions): "latest" is by event time, a DESTROY is never undone.
     */
    public static CtFacts merge(CtFacts entry, CtFacts event) {
        if (entry == null) {
            return event.copy();
        }
        CtFacts m = entry.copy();
        boolean newer = event.eventTimeNs >= entry.eventTimeNs;
        if (newer) {
            m.kind = event.kind;
            m.eventTimeNs = event.eventTimeNs;
            m.status = event.status;
            m.origSrc = event.origSrc;
            m.origDst = event.origDst;
            m.replySrc = event.replySrc;
            m.replyDst = event.replyDst;
            if (event.tcpState >= 0) {
                m.tcpState = event.tcpState;
            }
        } else if (m.tcpState < 0) {
            m.tcpState = event.tcpState;
        }
        if (event.destroyed) {
            m.destroyed = true;
            m.kind = event.kind;
            if (event.tcpState >= 0) {
                m.tcpState = event.tcpState;
            }
        }
        m.firstEventNs = Math.min(entry.firstEventNs, event.firstEventNs);
        if (m.startNs < 0) {
            m.startNs = event.startNs;
        }
        if (event.stopNs >= 0) {
            m.stopNs = event.stopNs;
        }
        if (event.origPackets >= 0 && (event.destroyed || m.origPackets < 0 || newer)) {
            m.origPackets = event.origPackets;
            m.origBytes = event.origBytes;
            m.replyPackets = event.replyPackets;
            m.replyBytes = event.replyBytes;
        }
        return m;
    }

    /** The entry's lifetime [start, stop] in ns: kernel timestamps when present, else first/latest event. */
    static long startNs(CtFacts ct) {
        return ct.startNs >= 0 ? ct.startNs : ct.firstEventNs;
    }

    static long stopNs(CtFacts ct) {
        if (ct.stopNs >= 0) {
            return ct.stopNs;
        }
        return ct.destroyed ? ct.eventTimeNs : Long.MAX_VALUE;
    }

    /** True when the entry's lifetime and the flow's packets overlap, within {@code slackNs} each side. */
    public static boolean overlaps(CtFacts ct, FlowView f, long slackNs) {
        long first = f.firstSeenUs * 1000;
        long last = f.lastSeenUs * 1000;
        long stop = stopNs(ct);
        return startNs(ct) <= last + slackNs && (stop == Long.MAX_VALUE || stop + slackNs >= first);
    }

    /**
     * The joined row of flow {@code f} and entry {@code ct}, or null when the flow's endpoints are
     * neither tuple of the entry (a different connection under the same key cannot happen, but a key
     * collision must not produce a wrong row).
     */
    public static FlowConntrack join(FlowView f, CtFacts ct) {
        String side;
        boolean c2sIsOriginal;
        if (f.client.equals(ct.origSrc) && f.server.equals(ct.origDst)) {
            side = "original";
            c2sIsOriginal = true;
        } else if (f.client.equals(ct.origDst) && f.server.equals(ct.origSrc)) {
            side = "original";
            c2sIsOriginal = false;
        } else if (f.client.equals(ct.replyDst) && f.server.equals(ct.replySrc)) {
            side = "reply";
            c2sIsOriginal = true;
        } else if (f.client.equals(ct.replySrc) && f.server.equals(ct.replyDst)) {
            side = "reply";
            c2sIsOriginal = false;
        } else {
            return null;
        }
        FlowConntrack r = new FlowConntrack();
        r.vantage = f.vantage;
        r.client = f.client;
        r.server = f.server;
        r.instance = f.instance;
        r.ctVantage = ct.ctVantage;
        r.ctId = ct.ctId;
        r.tupleSide = side;
        boolean snat = !ct.origSrc.equals(ct.replyDst);
        boolean dnat = !ct.origDst.equals(ct.replySrc);
        r.nat = snat && dnat ? "snat+dnat" : snat ? "snat" : dnat ? "dnat" : "none";
        r.preNatClient = ct.origSrc;
        r.preNatServer = ct.origDst;
        r.postNatClient = ct.replyDst;
        r.postNatServer = ct.replySrc;
        r.ctStatus = ct.status;
        r.ctTcpState = ct.tcpState;
        r.ctStartNs = ct.startNs;
        r.ctStopNs = ct.stopNs;
        r.ctDestroyed = ct.destroyed;
        if (ct.origPackets >= 0) {
            r.ctC2sPackets = c2sIsOriginal ? ct.origPackets : ct.replyPackets;
            r.ctC2sBytes = c2sIsOriginal ? ct.origBytes : ct.replyBytes;
            r.ctS2cPackets = c2sIsOriginal ? ct.replyPackets : ct.origPackets;
            r.ctS2cBytes = c2sIsOriginal ? ct.replyBytes : ct.origBytes;
        }
        r.capturedC2sPackets = f.c2sPackets;
        r.capturedS2cPackets = f.s2cPackets;
        r.flowFinal = f.finalRecord;
        if (ct.destroyed && ct.origPackets >= 0 && f.finalRecord) {
            r.c2sMissingPackets = r.ctC2sPackets - f.c2sPackets;
            r.s2cMissingPackets = r.ctS2cPackets - f.s2cPackets;
        }
        r.joinTimeUs = Math.max(f.recordTimeUs, ct.eventTimeNs / 1000);
        return r;
    }

    /**
     * Event time (ns) after which the entry is dropped: {@code waitNs} after its DESTROY (flows of
     * it may still be arriving), else {@code idleNs} after its latest event (a conntrack whose
     * DESTROY was lost, or that lives on without events, must not hold state for ever).
     */
    public static long expiryNs(CtFacts ct, long waitNs, long idleNs) {
        return ct.destroyed ? Math.max(stopNs(ct), ct.eventTimeNs) + waitNs : ct.eventTimeNs + idleNs;
    }

    /** Event time (ns) after which the flow is dropped: {@code waitNs} after its final record, else {@code idleNs} after its latest. */
    public static long expiryNs(FlowView f, long waitNs, long idleNs) {
        long last = Math.max(f.lastSeenUs, f.recordTimeUs) * 1000;
        return f.finalRecord ? last + waitNs : last + idleNs;
    }
}
