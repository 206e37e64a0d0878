package io.flowtrace.core.conntrack;

import static io.flowtrace.core.conntrack.CtaTypes.*;
import static io.flowtrace.core.conntrack.NlAttribute.leaf;
import static io.flowtrace.core.conntrack.NlAttribute.nest;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Rebuilds the attribute list the kernel writes for an event from the event's values, following
 * ctnetlink_conntrack_event() in net/netfilter/nf_conntrack_netlink.c (6.18) line by line. Used when
 * only conntrack(8) text was seen; for raw messages the tests check it reproduces the real list.
 *
 * <p>Attributes the text cannot show are filled in from {@link KernelFeatures}: the 6.18 event
 * timestamp (present iff the tstamp extension exists), and the TCP protoinfo children (state only on
 * DESTROY, state + 2 wscale + 2 flags otherwise: tcp_to_nlattr() with destroy=true/false), and, when
 * the text lacks them (no {@code -o ktimestamp}), the DESTROY counters and timestamps.
 */
public final class KernelEventLayout {
    /** sizeof(labels->bits): NF_CT_LABELS_MAX_SIZE, 128 bits (nf_conntrack_labels.h). */
    static final int LABELS_BYTES = 16;

    private KernelEventLayout() {}

    public static PresentAttributes infer(ConntrackMessage e, KernelFeatures f) {
        List<NlAttribute> a = new ArrayList<>(16);
        a.add(tuple(TUPLE_ORIG, e.orig()));
        a.add(tuple(TUPLE_REPLY, e.reply()));
        // ctnetlink_dump_zone_id(..., CTA_ZONE, zone, NF_CT_DEFAULT_ZONE_DIR): only a non-default zone
        if (e.zone() != ConntrackMessage.ABSENT) {
            a.add(leaf(ZONE, 2));
        }
        a.add(leaf(ID, 4));
        a.add(leaf(STATUS, 4));
        if (e.type() == EventType.DESTROY) {
            destroyPart(e, f, a);
        } else {
            newOrUpdatePart(e, a);
        }
        // ctnetlink_dump_mark(skb, ct, events & IPCT_MARK): written when non-zero or when it changed
        if (e.mark() != ConntrackMessage.ABSENT) {
            a.add(leaf(MARK, 4));
        }
        // ctnetlink_dump_event_timestamp(): e->timestamp is non-zero only with the tstamp extension
        if (e.eventTimestampNanos() != ConntrackMessage.ABSENT || (f.eventTimestamp() && f.timestamp())) {
            a.add(leaf(TIMESTAMP_EVENT, 8));
        }
        return new PresentAttributes(a, true);
    }

    private static void destroyPart(ConntrackMessage e, KernelFeatures f, List<NlAttribute> a) {
        // ctnetlink_dump_timeout(skb, ct, true): skip_zero, an expired entry has none
        if (e.timeout() > 0) {
            a.add(leaf(TIMEOUT, 4));
        }
        // ctnetlink_dump_acct(): both directions when NF_CT_EXT_ACCT exists
        if (e.origCounters() != null || f.acct()) {
            a.add(nest(COUNTERS_ORIG, List.of(leaf(COUNTERS_PACKETS, 8), leaf(COUNTERS_BYTES, 8))));
            a.add(nest(COUNTERS_REPLY, List.of(leaf(COUNTERS_PACKETS, 8), leaf(COUNTERS_BYTES, 8))));
        }
        // ctnetlink_dump_timestamp(): START always, STOP only when non-zero
        if (e.timestampStart() != ConntrackMessage.ABSENT || f.timestamp()) {
            List<NlAttribute> ts = new ArrayList<>(2);
            ts.add(leaf(TIMESTAMP_START, 8));
            // nf_ct_delete() stamps tstamp->stop before the DESTROY event, so an unseen stop is present
            boolean stopSeen = e.timestampStop() != ConntrackMessage.ABSENT && e.timestampStop() != 0;
            if (stopSeen || e.timestampStart() == ConntrackMessage.ABSENT) {
                ts.add(leaf(TIMESTAMP_STOP, 8));
            }
            a.add(nest(TIMESTAMP, ts));
        }
        // ctnetlink_dump_protoinfo(skb, ct, true): TCP writes the state only
        if (e.tcp() != null) {
            a.add(nest(PROTOINFO, List.of(nest(PROTOINFO_TCP, List.of(leaf(PROTOINFO_TCP_STATE, 1))))));
        }
    }

    private static void newOrUpdatePart(ConntrackMessage e, List<NlAttribute> a) {
        a.add(leaf(TIMEOUT, 4));
        // only when IPCT_PROTOINFO is in the event mask; visible as the TCP state in text
        if (e.tcp() != null) {
            a.add(nest(
                    PROTOINFO,
                    List.of(nest(
                            PROTOINFO_TCP,
                            List.of(
                                    leaf(PROTOINFO_TCP_STATE, 1),
                                    leaf(PROTOINFO_TCP_WSCALE_ORIGINAL, 1),
                                    leaf(PROTOINFO_TCP_WSCALE_REPLY, 1),
                                    leaf(PROTOINFO_TCP_FLAGS_ORIGINAL, 2),
                                    leaf(PROTOINFO_TCP_FLAGS_REPLY, 2))))));
        }
        if (e.helper() != null) {
            a.add(nest(HELP, List.of(leaf(HELP_NAME, cStringLength(e.helper())))));
        }
        if (e.secctx() != null) {
            a.add(nest(SECCTX, List.of(leaf(SECCTX_NAME, cStringLength(e.secctx())))));
        }
        if (e.labels() != null) {
            a.add(leaf(LABELS, LABELS_BYTES));
        }
        if (e.master() != null) {
            a.add(tuple(TUPLE_MASTER, e.master()));
        }
        if (e.seqAdjOrig() != null) {
            a.add(seqAdj(SEQ_ADJ_ORIG));
            a.add(seqAdj(SEQ_ADJ_REPLY));
        }
    }

    /** ctnetlink_dump_tuples() plus the directional CTA_TUPLE_ZONE. */
    static NlAttribute tuple(int type, ConntrackTuple t) {
        int addr = t.isIpv6() ? 16 : 4;
        NlAttribute ip = t.isIpv6()
                ? nest(TUPLE_IP, List.of(leaf(IP_V6_SRC, addr), leaf(IP_V6_DST, addr)))
                : nest(TUPLE_IP, List.of(leaf(IP_V4_SRC, addr), leaf(IP_V4_DST, addr)));
        List<NlAttribute> proto = new ArrayList<>(4);
        proto.add(leaf(PROTO_NUM, 1));
        // by protocol, not by what the text showed: conntrack -o xml prints no ICMP type/code/id
        if (usesPorts(t.proto())) {
            // nf_ct_port_tuple_to_nlattr()
            proto.add(leaf(PROTO_SRC_PORT, 2));
            proto.add(leaf(PROTO_DST_PORT, 2));
        } else if (t.proto() == IPPROTO_ICMP || t.proto() == IPPROTO_ICMPV6) {
            // icmp_tuple_to_nlattr() / icmpv6_tuple_to_nlattr(): id, type, code
            boolean v6 = t.proto() == IPPROTO_ICMPV6;
            proto.add(leaf(v6 ? PROTO_ICMPV6_ID : PROTO_ICMP_ID, 2));
            proto.add(leaf(v6 ? PROTO_ICMPV6_TYPE : PROTO_ICMP_TYPE, 1));
            proto.add(leaf(v6 ? PROTO_ICMPV6_CODE : PROTO_ICMP_CODE, 1));
        }
        List<NlAttribute> kids = new ArrayList<>(3);
        kids.add(ip);
        kids.add(nest(TUPLE_PROTO, proto));
        if (t.zone() != ConntrackTuple.ABSENT) {
            kids.add(leaf(TUPLE_ZONE, 2));
        }
        return nest(type, kids);
    }

    /** l4protos whose tuple_to_nlattr is nf_ct_port_tuple_to_nlattr (tcp, udp, udplite, sctp, dccp=33). */
    static boolean usesPorts(int proto) {
        return proto == IPPROTO_TCP
                || proto == IPPROTO_UDP
                || proto == IPPROTO_UDPLITE
                || proto == IPPROTO_SCTP
                || proto == 33;
    }

    private static NlAttribute seqAdj(int type) {
        return nest(
                type,
                List.of(leaf(SEQADJ_CORRECTION_POS, 4), leaf(SEQADJ_OFFSET_BEFORE, 4), leaf(SEQADJ_OFFSET_AFTER, 4)));
    }

    /** nla_put_string() copies strlen + 1 bytes. */
    static int cStringLength(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length + 1;
    }
}
