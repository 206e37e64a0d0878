package io.flowtrace.core.conntrack;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.Objects;

/**
 * One direction of a conntrack entry (struct nf_conntrack_tuple as ctnetlink_dump_tuples() writes it).
 * Addresses are raw network-order bytes, 4 for IPv4 and 16 for IPv6. Ports are set for TCP, UDP,
 * UDP-Lite and SCTP (nf_ct_port_tuple_to_nlattr); ICMP/ICMPv6 fill type, code and id instead
 * (icmp_tuple_to_nlattr). Absent values are -1. {@code zone} is CTA_TUPLE_ZONE, present only for
 * directional zones (ctnetlink_dump_zone_id with NF_CT_ZONE_DIR_ORIG/REPL).
 */
public record ConntrackTuple(
        byte[] src, byte[] dst, int proto, int srcPort, int dstPort, int icmpType, int icmpCode, int icmpId, int zone) {

    public static final int ABSENT = -1;

    public ConntrackTuple {
        Objects.requireNonNull(src, "src");
        Objects.requireNonNull(dst, "dst");
    }

    public static ConntrackTuple ports(byte[] src, byte[] dst, int proto, int srcPort, int dstPort) {
        return new ConntrackTuple(src, dst, proto, srcPort, dstPort, ABSENT, ABSENT, ABSENT, ABSENT);
    }

    public static ConntrackTuple icmp(byte[] src, byte[] dst, int proto, int type, int code, int id) {
        return new ConntrackTuple(src, dst, proto, ABSENT, ABSENT, type, code, id, ABSENT);
    }

    public ConntrackTuple withZone(int tupleZone) {
        return new ConntrackTuple(src, dst, proto, srcPort, dstPort, icmpType, icmpCode, icmpId, tupleZone);
    }

    public boolean isIpv6() {
        return src.length == 16;
    }

    public boolean hasPorts() {
        return srcPort != ABSENT;
    }

    public boolean isIcmp() {
        return icmpType != ABSENT;
    }

    public String srcText() {
        return addressText(src);
    }

    public String dstText() {
        return addressText(dst);
    }

    static String addressText(byte[] a) {
        try {
            return InetAddress.getByAddress(a).getHostAddress();
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("address of " + a.length + " bytes", e);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConntrackTuple t
                && Arrays.equals(src, t.src)
                && Arrays.equals(dst, t.dst)
                && proto == t.proto
                && srcPort == t.srcPort
                && dstPort == t.dstPort
                && icmpType == t.icmpType
                && icmpCode == t.icmpCode
                && icmpId == t.icmpId
                && zone == t.zone;
    }

    @Override
    public int hashCode() {
        int h = 31 * Arrays.hashCode(src) + Arrays.hashCode(dst);
        h = 31 * h + proto;
        h = 31 * h + srcPort;
        h = 31 * h + dstPort;
        h = 31 * h + icmpType;
        h = 31 * h + icmpCode;
        h = 31 * h + icmpId;
        return 31 * h + zone;
    }

    @Override
    public String toString() {
        String l4 = hasPorts()
                ? " sport=" + srcPort + " dport=" + dstPort
                : isIcmp() ? " type=" + icmpType + " code=" + icmpCode + " id=" + icmpId : "";
        return "src=" + srcText() + " dst=" + dstText() + " proto=" + proto + l4 + (zone >= 0 ? " zone=" + zone : "");
    }
}
