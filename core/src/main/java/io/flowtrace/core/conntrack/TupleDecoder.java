package io.flowtrace.core.conntrack;

import static io.flowtrace.core.conntrack.CtaTypes.*;

/**
 * Decodes a CTA_TUPLE_ORIG/REPLY/MASTER nest: CTA_TUPLE_IP (ipv4/ipv6_tuple_to_nlattr), CTA_TUPLE_PROTO
 * (CTA_PROTO_NUM then the l4proto's tuple_to_nlattr) and the optional CTA_TUPLE_ZONE.
 */
final class TupleDecoder {
    private TupleDecoder() {}

    static ConntrackTuple decode(CtnetlinkParser.WireReader r, NlaNode tuple, ConntrackMessage.Builder b)
            throws CtnetlinkParseException {
        byte[] src = null;
        byte[] dst = null;
        int proto = -1;
        int sport = -1;
        int dport = -1;
        int icmpType = -1;
        int icmpCode = -1;
        int icmpId = -1;
        int zone = -1;
        for (NlaNode n : tuple.children()) {
            switch (n.type()) {
                case TUPLE_IP -> {
                    for (NlaNode a : n.children()) {
                        switch (a.type()) {
                            case IP_V4_SRC -> src = r.exactly(a, 4);
                            case IP_V4_DST -> dst = r.exactly(a, 4);
                            case IP_V6_SRC -> src = r.exactly(a, 16);
                            case IP_V6_DST -> dst = r.exactly(a, 16);
                            default ->
                                b.unknown(new UnknownAttribute(
                                        tuple.type() + "/" + TUPLE_IP, a.type(), a.payloadLength(), a.headerOffset()));
                        }
                    }
                }
                case TUPLE_PROTO -> {
                    for (NlaNode p : n.children()) {
                        switch (p.type()) {
                            case PROTO_NUM -> proto = r.u8(p);
                            case PROTO_SRC_PORT -> sport = r.be16(p);
                            case PROTO_DST_PORT -> dport = r.be16(p);
                            case PROTO_ICMP_ID, PROTO_ICMPV6_ID -> icmpId = r.be16(p);
                            case PROTO_ICMP_TYPE, PROTO_ICMPV6_TYPE -> icmpType = r.u8(p);
                            case PROTO_ICMP_CODE, PROTO_ICMPV6_CODE -> icmpCode = r.u8(p);
                            default ->
                                b.unknown(new UnknownAttribute(
                                        tuple.type() + "/" + TUPLE_PROTO,
                                        p.type(),
                                        p.payloadLength(),
                                        p.headerOffset()));
                        }
                    }
                }
                case TUPLE_ZONE -> zone = r.be16(n);
                default ->
                    b.unknown(new UnknownAttribute(
                            String.valueOf(tuple.type()), n.type(), n.payloadLength(), n.headerOffset()));
            }
        }
        if (src == null || dst == null || proto < 0) {
            throw new CtnetlinkParseException(
                    tuple.headerOffset(),
                    "tuple " + tuple.type() + " lacks "
                            + (src == null ? "source address" : dst == null ? "destination address" : "CTA_PROTO_NUM"));
        }
        if (src.length != dst.length) {
            throw new CtnetlinkParseException(tuple.headerOffset(), "tuple mixes IPv4 and IPv6 addresses");
        }
        return new ConntrackTuple(src, dst, proto, sport, dport, icmpType, icmpCode, icmpId, zone);
    }
}
