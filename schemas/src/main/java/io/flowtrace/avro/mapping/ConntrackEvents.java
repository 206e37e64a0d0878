package io.flowtrace.avro.mapping;

import io.flowtrace.avro.ConntrackEvent;
import io.flowtrace.avro.ConntrackEventType;
import io.flowtrace.avro.ConntrackLoss;
import io.flowtrace.avro.CtCounters;
import io.flowtrace.avro.CtNatSeqAdj;
import io.flowtrace.avro.CtProtoinfoTcp;
import io.flowtrace.avro.CtTuple;
import io.flowtrace.core.conntrack.ConntrackMessage;
import io.flowtrace.core.conntrack.ConntrackTuple;
import io.flowtrace.core.conntrack.DirectionCounters;
import io.flowtrace.core.conntrack.EventType;
import io.flowtrace.core.conntrack.KernelEventLayout;
import io.flowtrace.core.conntrack.KernelFeatures;
import io.flowtrace.core.conntrack.NetlinkSizer;
import io.flowtrace.core.conntrack.SeqAdjustment;
import io.flowtrace.core.conntrack.SkbAllocator;
import io.flowtrace.core.conntrack.SkbCharge;
import io.flowtrace.core.conntrack.TcpProtoInfo;
import java.nio.ByteBuffer;

/**
 * From the {@code ConntrackMessage} contract back to what core's {@link NetlinkSizer} and
 * {@code ConntrackBudget} need: the inverse of the agent's {@code ConntrackAvroMapper} (absent = null
 * in Avro, -1 or null in core), validation of untrusted records, and the three sizes of an event.
 *
 * <p>Sizes ({@link #size}): the exact message size is {@code wire_size} when the record carries it and
 * its {@code attribute_types} (the raw netlink source read the real {@code nlmsg_len}); otherwise the
 * core event is rebuilt and {@link NetlinkSizer#exactSize} runs on the attribute list
 * {@link KernelEventLayout#infer} derives from the values (the text source). The kernel's estimate is
 * always {@link NetlinkSizer#estimatedSize} for the configured {@link KernelFeatures}, and the truesize
 * is the skb charge of that estimate trimmed against the exact size: {@link SkbAllocator#charge} with
 * {@link NetlinkSizer#estimatePayload}, i.e. what {@link NetlinkSizer#charge} computes, with the exact
 * size chosen above.
 */
public final class ConntrackEvents {
    /** Event times outside [2000-01-01, 2100-01-01) are corrupt, not clock skew (as for packets). */
    static final long MIN_TIME_NS = PacketEvents.MIN_TIME_NS;

    static final long MAX_TIME_NS = PacketEvents.MAX_TIME_NS;
    /** nlmsghdr + nfgenmsg: no conntrack message is shorter. */
    static final int MIN_WIRE_SIZE = NetlinkSizer.NLMSG_HDRLEN + NetlinkSizer.NFGENMSG_LEN;
    /** A netlink message's nlmsg_len is a u32 but one skb of a conntrack event never exceeds a page order: 64 KiB. */
    static final int MAX_WIRE_SIZE = 65_536;
    /** CTA_MAX of recent kernels is below this; a larger top-level type is corruption. */
    static final int MAX_CTA_TYPE = 64;

    private static final SkbAllocator SKB = SkbAllocator.x86_64();

    private ConntrackEvents() {}

    /** The sizes of one event for a budget. */
    public record Sizes(int exactBytes, int estimatedBytes, int truesizeBytes, boolean exactFromWire) {}

    /** The time budgets and event-time windows use: the kernel's event timestamp when present, else the receive time (core's {@code timeNanos()}). */
    public static long timeNanos(ConntrackEvent e) {
        return e.getEventTimestampNs() != null ? e.getEventTimestampNs() : e.getTimeNs();
    }

    /** Why a decoded record cannot be used, or null when it is valid. */
    public static String invalidReason(ConntrackEvent e) {
        return invalidReason(e, System.currentTimeMillis() * 1_000_000L);
    }

    /** As {@link #invalidReason(io.flowtrace.avro.ConntrackEvent)} with the validating host's clock (see PacketEvents). */
    public static String invalidReason(ConntrackEvent e, long nowNanos) {
        String ahead = aheadOfClock("time", e.getTimeNs(), nowNanos);
        if (ahead == null && e.getEventTimestampNs() != null) {
            ahead = aheadOfClock("event timestamp", e.getEventTimestampNs(), nowNanos);
        }
        String rest = checkEvent(e);
        return rest != null ? rest : ahead;
    }

    private static String checkEvent(ConntrackEvent e) {
        if (e.getEventType() == null || e.getEventType() == ConntrackEventType.UNKNOWN) {
            return "event_type " + e.getEventType() + " is not NEW, UPDATE or DESTROY";
        }
        String vantage = PacketEvents.vantageProblem(e.getVantage());
        if (vantage != null) {
            return vantage;
        }
        if (outsideTime(e.getTimeNs())) {
            return "time " + e.getTimeNs() + " ns is not between 2000 and 2100";
        }
        if (e.getEventTimestampNs() != null && outsideTime(e.getEventTimestampNs())) {
            return "event timestamp " + e.getEventTimestampNs() + " ns is not between 2000 and 2100";
        }
        int l3 = e.getL3Proto();
        if (l3 != ConntrackMessage.AF_INET && l3 != ConntrackMessage.AF_INET6) {
            return "l3_proto " + l3 + " is neither AF_INET (2) nor AF_INET6 (10)";
        }
        if (outside(e.getL4Proto(), 0, 255)) {
            return "l4_proto " + e.getL4Proto() + " outside 8 bits";
        }
        int addr = l3 == ConntrackMessage.AF_INET ? 4 : 16;
        String t = tupleProblem("orig", e.getOrig(), addr);
        if (t == null) {
            t = tupleProblem("reply", e.getReply(), addr);
        }
        if (t == null && e.getMaster() != null) {
            t = tupleProblem("master", e.getMaster(), addr);
        }
        if (t != null) {
            return t;
        }
        if (e.getOrig().getL4Proto() != e.getL4Proto()) {
            return "l4_proto " + e.getL4Proto() + " differs from the original tuple's "
                    + e.getOrig().getL4Proto();
        }
        if (e.getStatus() < 0 || e.getStatus() > 0xffffffffL) {
            return "status " + e.getStatus() + " outside 32 bits";
        }
        if (e.getZone() != null && outside(e.getZone(), 0, 65535)) {
            return "zone " + e.getZone() + " outside 16 bits";
        }
        if (e.getWireSize() != null) {
            int w = e.getWireSize();
            if (w < MIN_WIRE_SIZE || w > MAX_WIRE_SIZE || w % 4 != 0) {
                return "wire_size " + w + " is not a 4-aligned netlink message length in " + MIN_WIRE_SIZE + ".."
                        + MAX_WIRE_SIZE;
            }
        }
        for (Integer type : e.getAttributeTypes()) {
            if (type == null || type <= 0 || type >= MAX_CTA_TYPE) {
                return "attribute type " + type + " is not a CTA_* attribute";
            }
        }
        return null;
    }

    /** Why a decoded loss record cannot be used, or null when it is valid. */
    public static String invalidReason(ConntrackLoss l) {
        return invalidReason(l, System.currentTimeMillis() * 1_000_000L);
    }

    public static String invalidReason(ConntrackLoss l, long nowNanos) {
        String rest = checkLoss(l);
        return rest != null ? rest : aheadOfClock("time", l.getTimeNs(), nowNanos);
    }

    private static String checkLoss(ConntrackLoss l) {
        String vantage = PacketEvents.vantageProblem(l.getVantage());
        if (vantage != null) {
            return vantage;
        }
        if (outsideTime(l.getTimeNs())) {
            return "time " + l.getTimeNs() + " ns is not between 2000 and 2100";
        }
        if (l.getEnobufsCount() < 0 || l.getEnobufsCount() > Integer.MAX_VALUE) {
            return "enobufs_count " + l.getEnobufsCount() + " is negative or absurd";
        }
        return null;
    }

    /**
     * Core's event for a validated record: the values the agent mapped, {@code wire_size} as is, and
     * the attribute list inferred from the values for {@code features} (the contract carries only the
     * top-level types, not the payload lengths sizing needs).
     */
    public static ConntrackMessage toCore(ConntrackEvent e, KernelFeatures features) {
        ConntrackMessage.Builder b = ConntrackMessage.builder()
                .type(EventType.valueOf(e.getEventType().name()))
                .family(e.getL3Proto())
                .orig(tuple(e.getOrig()))
                .reply(tuple(e.getReply()))
                .master(e.getMaster() == null ? null : tuple(e.getMaster()))
                .id(orAbsent(e.getId()))
                .status(e.getStatus())
                .timeout(orAbsent(e.getTimeout()))
                .tcp(tcp(e.getProtoinfoTcp()))
                .timestampStart(orAbsent(e.getTimestampStartNs()))
                .timestampStop(orAbsent(e.getTimestampStopNs()))
                .eventTimestampNanos(orAbsent(e.getEventTimestampNs()))
                .mark(orAbsent(e.getMark()))
                .zone(e.getZone() == null ? ConntrackMessage.ABSENT : e.getZone())
                .use(orAbsent(e.getUse()))
                .helper(e.getHelper() == null ? null : e.getHelper().toString())
                .labels(e.getLabels() == null ? null : bytes(e.getLabels()))
                .secctx(e.getSecctx() == null ? null : e.getSecctx().toString())
                .seqAdjOrig(seqAdj(e.getNatSeqAdjOrig()))
                .seqAdjReply(seqAdj(e.getNatSeqAdjReply()))
                .observedAtNanos(e.getTimeNs())
                .wireSize(e.getWireSize() == null ? ConntrackMessage.ABSENT : e.getWireSize());
        CtCounters c = e.getCounters();
        if (c != null) {
            b.origCounters(new DirectionCounters(c.getOrigPackets(), c.getOrigBytes()))
                    .replyCounters(new DirectionCounters(c.getReplyPackets(), c.getReplyBytes()));
        }
        ConntrackMessage core = b.build();
        return core.withAttributes(KernelEventLayout.infer(core, features));
    }

    /** Exact, estimated and truesize bytes of a validated record (see the class comment). */
    public static Sizes size(ConntrackEvent e, KernelFeatures features, NetlinkSizer sizer) {
        ConntrackMessage core = toCore(e, features);
        boolean fromWire = e.getWireSize() != null && !e.getAttributeTypes().isEmpty();
        int exact = fromWire ? e.getWireSize() : sizer.exactSize(core);
        int estimated = sizer.estimatedSize(core, features);
        SkbCharge charge = SKB.charge(NetlinkSizer.estimatePayload(core.proto(), features), exact);
        return new Sizes(exact, estimated, charge.truesize(), fromWire);
    }

    /**
     * A kernel feature set from its text form: {@code stock} (core's {@link KernelFeatures#stock()}),
     * optionally followed by comma-separated changes {@code acct=false}, {@code timestamp=false},
     * {@code labels=true}, {@code secctx=<length>}, {@code nat=}, {@code mark=}, {@code zones=},
     * {@code event-timestamp=}; e.g. {@code stock,acct=false,timestamp=false}.
     */
    public static KernelFeatures parseFeatures(String spec) {
        KernelFeatures f = KernelFeatures.stock();
        boolean acct = f.acct(), timestamp = f.timestamp(), labels = f.labels(), nat = f.nat(), mark = f.mark();
        boolean zones = f.zones(), eventTimestamp = f.eventTimestamp();
        int secctx = f.secctxLength();
        for (String raw : spec.split(",")) {
            String part = raw.strip();
            if (part.isEmpty() || part.equals("stock")) {
                continue;
            }
            int eq = part.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException(
                        "kernel feature '" + part + "' is not name=value (in '" + spec + "')");
            }
            String name = part.substring(0, eq).strip();
            String value = part.substring(eq + 1).strip();
            switch (name) {
                case "acct" -> acct = bool(name, value);
                case "timestamp" -> timestamp = bool(name, value);
                case "labels" -> labels = bool(name, value);
                case "nat" -> nat = bool(name, value);
                case "mark" -> mark = bool(name, value);
                case "zones" -> zones = bool(name, value);
                case "event-timestamp" -> eventTimestamp = bool(name, value);
                case "secctx" -> {
                    try {
                        secctx = Integer.parseInt(value);
                    } catch (NumberFormatException ex) {
                        throw new IllegalArgumentException(
                                "kernel feature secctx must be a length, got '" + value + "'", ex);
                    }
                    if (secctx < 0 || secctx > 4096) {
                        throw new IllegalArgumentException(
                                "kernel feature secctx length " + secctx + " outside 0..4096");
                    }
                }
                default ->
                    throw new IllegalArgumentException("unknown kernel feature '" + name
                            + "' (acct, timestamp, labels, secctx, nat, mark, zones, event-timestamp)");
            }
        }
        return new KernelFeatures(acct, timestamp, labels, secctx, nat, mark, zones, eventTimestamp);
    }

    private static boolean bool(String name, String value) {
        if (!value.equals("true") && !value.equals("false")) {
            throw new IllegalArgumentException(
                    "kernel feature " + name + " must be true or false, got '" + value + "'");
        }
        return value.equals("true");
    }

    private static String tupleProblem(String name, CtTuple t, int addr) {
        if (t == null) {
            return name + " tuple missing";
        }
        if (t.getSrc().remaining() != addr || t.getDst().remaining() != addr) {
            return name + " tuple address lengths " + t.getSrc().remaining() + "/"
                    + t.getDst().remaining() + " do not match the family (" + addr + ")";
        }
        if (outside(t.getL4Proto(), 0, 255)) {
            return name + " tuple l4_proto " + t.getL4Proto() + " outside 8 bits";
        }
        if ((t.getSrcPort() != null && outside(t.getSrcPort(), 0, 65535))
                || (t.getDstPort() != null && outside(t.getDstPort(), 0, 65535))) {
            return name + " tuple port out of range: " + t.getSrcPort() + " -> " + t.getDstPort();
        }
        return null;
    }

    private static ConntrackTuple tuple(CtTuple t) {
        return new ConntrackTuple(
                bytes(t.getSrc()),
                bytes(t.getDst()),
                t.getL4Proto(),
                orAbsent(t.getSrcPort()),
                orAbsent(t.getDstPort()),
                orAbsent(t.getIcmpType()),
                orAbsent(t.getIcmpCode()),
                orAbsent(t.getIcmpId()),
                ConntrackTuple.ABSENT);
    }

    private static TcpProtoInfo tcp(CtProtoinfoTcp p) {
        if (p == null) {
            return null;
        }
        // The contract does not carry the masks; sizing does not need them (fixed-size attributes).
        return new TcpProtoInfo(
                p.getState(),
                orAbsent(p.getWscaleOrig()),
                orAbsent(p.getWscaleReply()),
                orAbsent(p.getFlagsOrig()),
                TcpProtoInfo.ABSENT,
                orAbsent(p.getFlagsReply()),
                TcpProtoInfo.ABSENT);
    }

    private static SeqAdjustment seqAdj(CtNatSeqAdj s) {
        return s == null ? null : new SeqAdjustment(s.getCorrectionPos(), s.getOffsetBefore(), s.getOffsetAfter());
    }

    private static byte[] bytes(ByteBuffer buffer) {
        ByteBuffer b = buffer.duplicate();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    private static long orAbsent(Long v) {
        return v == null ? ConntrackMessage.ABSENT : v;
    }

    private static int orAbsent(Integer v) {
        return v == null ? ConntrackMessage.ABSENT : v;
    }

    /** 50 years ahead is still before 2100: refuse times more than a day ahead of the validating host's clock. */
    private static String aheadOfClock(String what, long ns, long nowNanos) {
        if (nowNanos < MAX_TIME_NS - PacketEvents.MAX_FUTURE_NS && ns > nowNanos + PacketEvents.MAX_FUTURE_NS) {
            return what + " " + ns + " ns is more than a day ahead of this host's clock (" + nowNanos + " ns)";
        }
        return null;
    }

    private static boolean outsideTime(long ns) {
        return ns < MIN_TIME_NS || ns >= MAX_TIME_NS;
    }

    private static boolean outside(long v, long min, long max) {
        return v < min || v > max;
    }
}
