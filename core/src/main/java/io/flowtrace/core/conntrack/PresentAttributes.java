package io.flowtrace.core.conntrack;

import java.util.List;

/**
 * Which attributes a ctnetlink message carries, in wire order, with their payload lengths.
 * This is all that sizing needs: the message length is the netlink and nfgenmsg headers plus
 * the total size of these attributes. {@code inferred} marks a list reconstructed from the
 * text output (KernelEventLayout) rather than read from raw bytes.
 */
public record PresentAttributes(List<NlAttribute> attributes, boolean inferred) {

    public PresentAttributes {
        attributes = List.copyOf(attributes);
    }

    public NlAttribute find(int type) {
        for (NlAttribute a : attributes) {
            if (a.type() == type) {
                return a;
            }
        }
        return null;
    }

    public boolean has(int type) {
        return find(type) != null;
    }

    /** Sum of nla_total_size() over the top-level attributes. */
    public int attributeBytes() {
        int n = 0;
        for (NlAttribute a : attributes) {
            n += a.totalSize();
        }
        return n;
    }

    /** The tree in the notation of scripts/lab/ct_dump.py, e.g. {@code 1{1{1:4,2:4}},12:4}. */
    public String describe() {
        StringBuilder sb = new StringBuilder();
        describe(attributes, sb);
        return sb.toString();
    }

    static void describe(List<NlAttribute> list, StringBuilder out) {
        for (int i = 0; i < list.size(); i++) {
            if (i > 0) {
                out.append(',');
            }
            list.get(i).describe(out);
        }
    }
}
