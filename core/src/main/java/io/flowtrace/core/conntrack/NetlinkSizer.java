package io.flowtrace.core.conntrack;

import static io.flowtrace.core.conntrack.CtaTypes.*;
import static io.flowtrace.core.conntrack.NlAttribute.totalSize;

/**
 * Sizes of the netlink message the kernel sends for a conntrack event.
 *
 * <ul>
 *   <li>{@link #exactSize}: nlmsghdr (16) + nfgenmsg (4) + Σ nla_total_size() of the attributes the
 *       event carries. 64-bit attributes need no CTA_*_PAD on x86_64: nla_need_padding_for_64bit() is
 *       false with CONFIG_HAVE_EFFICIENT_UNALIGNED_ACCESS (include/net/netlink.h).</li>
 *   <li>{@link #estimatedSize}: the whole message the kernel reserves, nlmsg_total_size() of the static
 *       ctnetlink_nlmsg_size() for this entry's protocol and the configured features.</li>
 *   <li>{@link #charge}: the skb truesize the listener's receive buffer pays (see {@link SkbAllocator}).</li>
 * </ul>
 */
public final class NetlinkSizer {
    public static final int NLMSG_HDRLEN = 16;
    public static final int NFGENMSG_LEN = 4;
    /** NF_CT_HELPER_NAME_LEN (include/net/netfilter/nf_conntrack_helper.h). */
    static final int NF_CT_HELPER_NAME_LEN = 16;
    /** nla_policy_len(cta_ip_nla_policy): V4 src/dst NLA_U32 (8 each) + V6 src/dst .len 16 (20 each). */
    static final int CTA_IP_POLICY_LEN = 8 + 8 + 20 + 20;
    /** nla_policy_len(nf_ct_port_nla_policy): src/dst port NLA_U16. */
    static final int PORT_TUPLE_POLICY_LEN = 8 + 8;
    /** nla_policy_len(icmp_nla_policy) = icmpv6's: type U8, code U8, id U16. */
    static final int ICMP_TUPLE_POLICY_LEN = 8 + 8 + 8;
    /** TCP_NLATTR_SIZE (nf_conntrack_proto_tcp.c): state, 2 wscale, 2 nf_ct_tcp_flags. */
    static final int TCP_NLATTR_SIZE = 8 + 8 + 8 + 8;
    /** SCTP_NLATTR_SIZE (nf_conntrack_proto_sctp.c). */
    static final int SCTP_NLATTR_SIZE = 8 + 8 + 8;

    private final SkbAllocator skb;

    public NetlinkSizer(SkbAllocator skb) {
        this.skb = skb;
    }

    public NetlinkSizer() {
        this(SkbAllocator.x86_64());
    }

    /** Exact nlmsg_len of the event's message, from the attributes it carries. */
    public int exactSize(ConntrackMessage event) {
        PresentAttributes a = event.attributes();
        if (a == null) {
            throw new IllegalArgumentException("event has no attribute list; infer it with KernelEventLayout first");
        }
        return NLMSG_HDRLEN + NFGENMSG_LEN + a.attributeBytes();
    }

    /** nlmsg_total_size(ctnetlink_nlmsg_size(ct)): what nlmsg_new() is asked for. */
    public int estimatedSize(ConntrackMessage event, KernelFeatures f) {
        return SkbAllocator.nlmsgTotalSize(estimatePayload(event.proto(), f));
    }

    /** ctnetlink_nlmsg_size() (nf_conntrack_netlink.c, 6.18) for an entry of IP protocol {@code proto}. */
    public static int estimatePayload(int proto, KernelFeatures f) {
        int len = NlAttribute.align4(NFGENMSG_LEN)
                + 3 * totalSize(0) // CTA_TUPLE_ORIG|REPL|MASTER
                + 3 * totalSize(0) // CTA_TUPLE_IP
                + 3 * totalSize(0) // CTA_TUPLE_PROTO
                + 3 * totalSize(1) // CTA_PROTO_NUM
                + totalSize(4) // CTA_ID
                + totalSize(4); // CTA_STATUS
        if (f.acct()) { // ctnetlink_acct_size()
            len += 2 * totalSize(0) + 2 * totalSize(8) + 2 * totalSize(8);
        }
        if (f.timestamp()) { // ctnetlink_timestamp_size()
            len += totalSize(0) + 2 * totalSize(8);
        }
        len += totalSize(4) // CTA_TIMEOUT
                + totalSize(0) // CTA_PROTOINFO
                + totalSize(0) // CTA_HELP
                + totalSize(NF_CT_HELPER_NAME_LEN); // CTA_HELP_NAME
        if (f.secctxLength() > 0) { // ctnetlink_secctx_size()
            len += totalSize(0) + totalSize(f.secctxLength());
        }
        if (f.nat()) { // CONFIG_NF_NAT: CTA_NAT_SEQ_ADJ_ORIG|REPL + 6 offsets
            len += 2 * totalSize(0) + 6 * totalSize(4);
        }
        if (f.mark()) { // CONFIG_NF_CONNTRACK_MARK
            len += totalSize(4);
        }
        if (f.zones()) { // CONFIG_NF_CONNTRACK_ZONES: CTA_ZONE|CTA_TUPLE_ZONE
            len += totalSize(2);
        }
        len += protoSize(proto); // ctnetlink_proto_size()
        if (f.labels()) { // ctnetlink_label_size()
            len += totalSize(KernelEventLayout.LABELS_BYTES);
        }
        if (f.eventTimestamp()) { // CONFIG_NF_CONNTRACK_TIMESTAMP: CTA_TIMESTAMP_EVENT
            len += totalSize(8);
        }
        return len;
    }

    /**
     * ctnetlink_proto_size(): IP policy length × 3 (orig, reply, master), the l4proto's nlattr_size,
     * and its nlattr_tuple_size() × 3. Protocols without netlink tuple helpers add nothing.
     */
    static int protoSize(int proto) {
        int len = 3 * CTA_IP_POLICY_LEN;
        return switch (proto) {
            case IPPROTO_TCP -> len + TCP_NLATTR_SIZE + 3 * PORT_TUPLE_POLICY_LEN;
            case IPPROTO_SCTP -> len + SCTP_NLATTR_SIZE + 3 * PORT_TUPLE_POLICY_LEN;
            case IPPROTO_UDP, IPPROTO_UDPLITE -> len + 3 * PORT_TUPLE_POLICY_LEN;
            case IPPROTO_ICMP, IPPROTO_ICMPV6 -> len + 3 * ICMP_TUPLE_POLICY_LEN;
            default -> len;
        };
    }

    /** The skb charge for this event: allocation from the estimate, trim against the exact size. */
    public SkbCharge charge(ConntrackMessage event, KernelFeatures f) {
        return skb.charge(estimatePayload(event.proto(), f), exactSize(event));
    }

    public int truesize(ConntrackMessage event, KernelFeatures f) {
        return charge(event, f).truesize();
    }
}
