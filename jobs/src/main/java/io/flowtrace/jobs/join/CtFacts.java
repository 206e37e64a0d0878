package io.flowtrace.jobs.join;

import io.flowtrace.avro.ConntrackEvent;
import io.flowtrace.avro.ConntrackEventType;
import io.flowtrace.avro.CtTuple;
import io.flowtrace.avro.mapping.ConntrackEvents;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.core.net.Endpoint;
import java.nio.ByteBuffer;

/**
 * What the conntrack ↔ flow join needs of one conntrack event, and (merged over the events of one
 * conntrack with {@link ConntrackJoin#merge}) of one conntrack entry: both tuples as endpoint
 * strings in the flow records' format ({@link Endpoint#toString}), status, TCP state, lifetime and
 * the DESTROY counters. A Flink POJO (public fields, no-arg constructor); -1 means absent.
 */
public final class CtFacts {
    /** The key the record is routed by (set per copy by {@link ConntrackJoin#keys}); not part of the entry. */
    public String joinKey;

    public String agentId;
    /** agent/interface of the conntrack reader. */
    public String ctVantage;
    /** CTA_ID, or -1 when the source did not see it. */
    public long ctId = -1;
    /** 0 NEW, 1 UPDATE, 2 DESTROY (the latest event merged in). */
    public byte kind;
    /** Event time of the latest event merged in, ns since the epoch. */
    public long eventTimeNs;
    /** Event time of the first event merged in (the entry's start when the kernel timestamps are off). */
    public long firstEventNs;

    public String origSrc;
    public String origDst;
    public String replySrc;
    public String replyDst;
    public long status;
    /** CTA_PROTOINFO_TCP_STATE of the latest event that carried it, -1 if none did. */
    public int tcpState = -1;

    public long startNs = -1;
    public long stopNs = -1;
    public long origPackets = -1;
    public long origBytes = -1;
    public long replyPackets = -1;
    public long replyBytes = -1;
    public boolean destroyed;

    public CtFacts() {}

    /**
     * The join facts of a decoded, validated TCP event, or null when the event cannot join a flow
     * (not TCP, no ports: flows are TCP only).
     */
    public static CtFacts of(ConntrackEvent e) {
        if (e.getL4Proto() != 6 || !hasPorts(e.getOrig()) || !hasPorts(e.getReply())) {
            return null;
        }
        CtFacts f = new CtFacts();
        f.agentId = e.getVantage().getAgentId();
        f.ctVantage = PacketEvents.vantage(e.getVantage());
        f.ctId = e.getId() == null ? -1 : e.getId();
        f.kind = e.getEventType() == ConntrackEventType.NEW
                ? (byte) 0
                : e.getEventType() == ConntrackEventType.UPDATE ? (byte) 1 : (byte) 2;
        f.eventTimeNs = ConntrackEvents.timeNanos(e);
        f.firstEventNs = f.eventTimeNs;
        f.origSrc = endpoint(e.getOrig().getSrc(), e.getOrig().getSrcPort());
        f.origDst = endpoint(e.getOrig().getDst(), e.getOrig().getDstPort());
        f.replySrc = endpoint(e.getReply().getSrc(), e.getReply().getSrcPort());
        f.replyDst = endpoint(e.getReply().getDst(), e.getReply().getDstPort());
        f.status = e.getStatus();
        f.tcpState = e.getProtoinfoTcp() == null ? -1 : e.getProtoinfoTcp().getState();
        f.startNs = e.getTimestampStartNs() == null ? -1 : e.getTimestampStartNs();
        f.stopNs = e.getTimestampStopNs() == null ? -1 : e.getTimestampStopNs();
        if (e.getCounters() != null) {
            f.origPackets = e.getCounters().getOrigPackets();
            f.origBytes = e.getCounters().getOrigBytes();
            f.replyPackets = e.getCounters().getReplyPackets();
            f.replyBytes = e.getCounters().getReplyBytes();
        }
        f.destroyed = f.kind == 2;
        return f;
    }

    private static boolean hasPorts(CtTuple t) {
        return t.getSrcPort() != null && t.getDstPort() != null;
    }

    private static String endpoint(ByteBuffer address, int port) {
        ByteBuffer b = address.duplicate();
        byte[] bytes = new byte[b.remaining()];
        b.get(bytes);
        return new Endpoint(bytes, port).toString();
    }

    public CtFacts copy() {
        CtFacts c = new CtFacts();
        c.joinKey = joinKey;
        c.agentId = agentId;
        c.ctVantage = ctVantage;
        c.ctId = ctId;
        c.kind = kind;
        c.eventTimeNs = eventTimeNs;
        c.firstEventNs = firstEventNs;
        c.origSrc = origSrc;
        c.origDst = origDst;
        c.replySrc = replySrc;
        c.replyDst = replyDst;
        c.status = status;
        c.tcpState = tcpState;
        c.startNs = startNs;
        c.stopNs = stopNs;
        c.origPackets = origPackets;
        c.origBytes = origBytes;
        c.replyPackets = replyPackets;
        c.replyBytes = replyBytes;
        c.destroyed = destroyed;
        return c;
    }

    /** The entry's identity within one join key: CTA_ID, else the original tuple and start. */
    public String entryId() {
        return ctId >= 0 ? "id:" + ctId : "t:" + origSrc + ">" + origDst + "@" + startNs;
    }

    @Override
    public String toString() {
        return "ct " + ctId + " " + origSrc + ">" + origDst + " / " + replySrc + ">" + replyDst + " kind " + kind
                + (destroyed ? " destroyed" : "") + " counters " + origPackets + "/" + replyPackets;
    }
}
