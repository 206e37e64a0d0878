package io.flowtrace.core.conntrack;

/**
 * Attribute numbers of include/uapi/linux/netfilter/nfnetlink_conntrack.h (kernel 6.18),
 * named as there. Only the enums ctnetlink events use are listed.
 */
public final class CtaTypes {
    private CtaTypes() {}

    // enum ctattr_type
    public static final int TUPLE_ORIG = 1;
    public static final int TUPLE_REPLY = 2;
    public static final int STATUS = 3;
    public static final int PROTOINFO = 4;
    public static final int HELP = 5;
    public static final int NAT_SRC = 6;
    public static final int TIMEOUT = 7;
    public static final int MARK = 8;
    public static final int COUNTERS_ORIG = 9;
    public static final int COUNTERS_REPLY = 10;
    public static final int USE = 11;
    public static final int ID = 12;
    public static final int NAT_DST = 13;
    public static final int TUPLE_MASTER = 14;
    public static final int SEQ_ADJ_ORIG = 15;
    public static final int SEQ_ADJ_REPLY = 16;
    public static final int SECMARK = 17;
    public static final int ZONE = 18;
    public static final int SECCTX = 19;
    public static final int TIMESTAMP = 20;
    public static final int MARK_MASK = 21;
    public static final int LABELS = 22;
    public static final int LABELS_MASK = 23;
    public static final int SYNPROXY = 24;
    public static final int FILTER = 25;
    public static final int STATUS_MASK = 26;
    /** Added after 6.12-era trees; every 6.18 event carries it when the tstamp extension exists. */
    public static final int TIMESTAMP_EVENT = 27;

    // enum ctattr_tuple
    public static final int TUPLE_IP = 1;
    public static final int TUPLE_PROTO = 2;
    public static final int TUPLE_ZONE = 3;

    // enum ctattr_ip
    public static final int IP_V4_SRC = 1;
    public static final int IP_V4_DST = 2;
    public static final int IP_V6_SRC = 3;
    public static final int IP_V6_DST = 4;

    // enum ctattr_l4proto
    public static final int PROTO_NUM = 1;
    public static final int PROTO_SRC_PORT = 2;
    public static final int PROTO_DST_PORT = 3;
    public static final int PROTO_ICMP_ID = 4;
    public static final int PROTO_ICMP_TYPE = 5;
    public static final int PROTO_ICMP_CODE = 6;
    public static final int PROTO_ICMPV6_ID = 7;
    public static final int PROTO_ICMPV6_TYPE = 8;
    public static final int PROTO_ICMPV6_CODE = 9;

    // enum ctattr_protoinfo / ctattr_protoinfo_tcp
    public static final int PROTOINFO_TCP = 1;
    public static final int PROTOINFO_TCP_STATE = 1;
    public static final int PROTOINFO_TCP_WSCALE_ORIGINAL = 2;
    public static final int PROTOINFO_TCP_WSCALE_REPLY = 3;
    public static final int PROTOINFO_TCP_FLAGS_ORIGINAL = 4;
    public static final int PROTOINFO_TCP_FLAGS_REPLY = 5;

    // enum ctattr_counters
    public static final int COUNTERS_PACKETS = 1;
    public static final int COUNTERS_BYTES = 2;

    // enum ctattr_tstamp
    public static final int TIMESTAMP_START = 1;
    public static final int TIMESTAMP_STOP = 2;

    // enum ctattr_seqadj
    public static final int SEQADJ_CORRECTION_POS = 1;
    public static final int SEQADJ_OFFSET_BEFORE = 2;
    public static final int SEQADJ_OFFSET_AFTER = 3;

    // enum ctattr_help / ctattr_secctx
    public static final int HELP_NAME = 1;
    public static final int SECCTX_NAME = 1;

    // IP protocol numbers the tuple layouts depend on
    public static final int IPPROTO_ICMP = 1;
    public static final int IPPROTO_TCP = 6;
    public static final int IPPROTO_UDP = 17;
    public static final int IPPROTO_ICMPV6 = 58;
    public static final int IPPROTO_SCTP = 132;
    public static final int IPPROTO_UDPLITE = 136;
}
