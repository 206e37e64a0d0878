package io.flowtrace.core.conntrack;

import io.flowtrace.core.net.IpLiteral;

/** Collects one direction's fields while reading conntrack(8) text or XML. */
final class TupleText {
    String src;
    String dst;
    int proto = -1;
    int sport = -1;
    int dport = -1;
    int type = -1;
    int code = -1;
    int icmpId = -1;
    int zone = -1;
    long packets = -1;
    long bytes = -1;

    boolean isIcmp() {
        return proto == CtaTypes.IPPROTO_ICMP || proto == CtaTypes.IPPROTO_ICMPV6;
    }

    ConntrackTuple toTuple(String what) {
        if (src == null || dst == null) {
            throw new IllegalArgumentException(what + " tuple lacks " + (src == null ? "src=" : "dst="));
        }
        return new ConntrackTuple(
                IpLiteral.parse(src), IpLiteral.parse(dst), proto, sport, dport, type, code, icmpId, zone);
    }

    DirectionCounters counters() {
        return packets < 0 && bytes < 0 ? null : new DirectionCounters(packets, bytes);
    }
}
