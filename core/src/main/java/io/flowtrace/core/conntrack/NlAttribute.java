package io.flowtrace.core.conntrack;

import java.util.List;

/**
 * One netlink attribute as it sits on the wire: its type (without the NLA_F_NESTED /
 * NLA_F_NET_BYTEORDER flag bits), the payload length from nla_len, and for a nest its children.
 * The wire cost is {@code NLA_ALIGN(NLA_HDRLEN + payload)} (nla_total_size(), include/net/netlink.h).
 */
public record NlAttribute(int type, int payloadLength, boolean nested, List<NlAttribute> children) {

    public static final int NLA_HDRLEN = 4;

    public NlAttribute {
        children = List.copyOf(children);
    }

    public static NlAttribute leaf(int type, int payloadLength) {
        return new NlAttribute(type, payloadLength, false, List.of());
    }

    /** A nest whose payload is exactly its children (what nla_nest_end() writes). */
    public static NlAttribute nest(int type, List<NlAttribute> children) {
        int payload = 0;
        for (NlAttribute c : children) {
            payload += c.totalSize();
        }
        return new NlAttribute(type, payload, true, children);
    }

    public static int align4(int n) {
        return (n + 3) & ~3;
    }

    /** nla_total_size(payload). */
    public static int totalSize(int payload) {
        return align4(NLA_HDRLEN + payload);
    }

    public int totalSize() {
        return totalSize(payloadLength);
    }

    public NlAttribute child(int childType) {
        for (NlAttribute c : children) {
            if (c.type == childType) {
                return c;
            }
        }
        return null;
    }

    /** Compact notation shared with scripts/lab/ct_dump.py: {@code TYPE:LEN} or {@code TYPE{...}}. */
    public void describe(StringBuilder out) {
        out.append(type);
        if (nested) {
            out.append('{');
            PresentAttributes.describe(children, out);
            out.append('}');
        } else {
            out.append(':').append(payloadLength);
        }
    }
}
