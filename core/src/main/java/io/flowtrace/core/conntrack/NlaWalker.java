package io.flowtrace.core.conntrack;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits a byte range into netlink attributes (the loop of nla_for_each_attr() / nla_ok() in
 * include/net/netlink.h): header {u16 nla_len, u16 nla_type} in host order (little-endian on
 * x86_64), next attribute at NLA_ALIGN(nla_len). Lengths are checked against the enclosing range
 * before anything is read, and nesting depth is capped, so absurd lengths cannot loop or allocate.
 */
final class NlaWalker {
    static final int NLA_F_NESTED = 0x8000;
    static final int NLA_F_NET_BYTEORDER = 0x4000;
    static final int NLA_TYPE_MASK = ~(NLA_F_NESTED | NLA_F_NET_BYTEORDER) & 0xffff;
    static final int MAX_DEPTH = 6;

    private final byte[] buf;

    NlaWalker(byte[] buf) {
        this.buf = buf;
    }

    /**
     * @param nestSchema decides per depth and type whether an attribute is a nest; types it does not
     *                   know fall back to the NLA_F_NESTED bit the kernel sets in nla_nest_start().
     */
    List<NlaNode> walk(int start, int end, int depth, NestSchema nestSchema, int parentType)
            throws CtnetlinkParseException {
        if (depth > MAX_DEPTH) {
            throw new CtnetlinkParseException(start, "attributes nested deeper than " + MAX_DEPTH);
        }
        List<NlaNode> out = new ArrayList<>(Math.min(16, (end - start) / 4 + 1));
        int off = start;
        while (off < end) {
            if (end - off < NlAttribute.NLA_HDRLEN) {
                throw new CtnetlinkParseException(off, (end - off) + " trailing bytes, less than an attribute header");
            }
            int len = u16le(off);
            int rawType = u16le(off + 2);
            if (len < NlAttribute.NLA_HDRLEN) {
                throw new CtnetlinkParseException(off, "nla_len " + len + " below the 4-byte header");
            }
            if (len > end - off) {
                throw new CtnetlinkParseException(off, "nla_len " + len + " runs past the enclosing end " + end);
            }
            int type = rawType & NLA_TYPE_MASK;
            int payloadLen = len - NlAttribute.NLA_HDRLEN;
            boolean nested = nestSchema.isNest(depth, parentType, type, (rawType & NLA_F_NESTED) != 0);
            List<NlaNode> kids =
                    nested ? walk(off + NlAttribute.NLA_HDRLEN, off + len, depth + 1, nestSchema, type) : List.of();
            out.add(new NlaNode(type, off, off + NlAttribute.NLA_HDRLEN, payloadLen, nested, kids));
            // The last attribute may omit its padding; the kernel pads, but nla_ok() tolerates it.
            off += Math.min(NlAttribute.align4(len), end - off);
        }
        return out;
    }

    int u16le(int off) {
        return (buf[off] & 0xff) | (buf[off + 1] & 0xff) << 8;
    }

    /** Which attributes are nests, by depth and parent (the ctnetlink layouts). */
    interface NestSchema {
        boolean isNest(int depth, int parentType, int type, boolean flaggedNested);
    }
}
