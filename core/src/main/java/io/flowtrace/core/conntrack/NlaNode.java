package io.flowtrace.core.conntrack;

import java.util.List;

/**
 * A parsed attribute with the offset of its payload in the message buffer, so typed decoding can
 * read it after the structure has been validated. Package-private: the public view is {@link NlAttribute}.
 */
record NlaNode(
        int type, int headerOffset, int payloadOffset, int payloadLength, boolean nested, List<NlaNode> children) {

    NlaNode child(int childType) {
        for (NlaNode c : children) {
            if (c.type == childType) {
                return c;
            }
        }
        return null;
    }

    NlAttribute toAttribute() {
        if (!nested) {
            return NlAttribute.leaf(type, payloadLength);
        }
        NlAttribute[] kids = new NlAttribute[children.size()];
        for (int i = 0; i < kids.length; i++) {
            kids[i] = children.get(i).toAttribute();
        }
        return new NlAttribute(type, payloadLength, true, List.of(kids));
    }
}
