package io.flowtrace.core.conntrack;

import static io.flowtrace.core.conntrack.CtaTypes.*;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Parses one ctnetlink event message: struct nlmsghdr (16 B, host byte order), struct nfgenmsg
 * (4 B: family, version, res_id) and the CTA_* attributes that ctnetlink_conntrack_event()
 * (net/netfilter/nf_conntrack_netlink.c) writes. Attribute headers are host order; payloads are
 * network order (nla_put_be16/be32/be64, nla_put_in_addr) except u8 values and byte strings.
 *
 * <p>Malformed input raises {@link CtnetlinkParseException} with the byte offset. Attributes with no
 * known layout are kept in the attribute list and in {@link ConntrackMessage#unknown()}.
 */
public final class CtnetlinkParser {
    public static final int NLMSG_HDRLEN = 16;
    public static final int NFGENMSG_LEN = 4;
    /** NFNL_SUBSYS_CTNETLINK (include/uapi/linux/netfilter/nfnetlink.h). */
    static final int NFNL_SUBSYS_CTNETLINK = 1;

    static final int IPCTNL_MSG_CT_NEW = 0;
    static final int IPCTNL_MSG_CT_DELETE = 2;
    /** NLM_F_CREATE|NLM_F_EXCL: set only on the NEW group's messages (ctnetlink_conntrack_event). */
    static final int NLM_F_CREATE = 0x400;

    private static final int[] TOP_NESTS = {
        TUPLE_ORIG,
        TUPLE_REPLY,
        PROTOINFO,
        HELP,
        NAT_SRC,
        COUNTERS_ORIG,
        COUNTERS_REPLY,
        NAT_DST,
        TUPLE_MASTER,
        SEQ_ADJ_ORIG,
        SEQ_ADJ_REPLY,
        SECCTX,
        TIMESTAMP,
        SYNPROXY,
        FILTER
    };
    private static final int[] TOP_LEAVES = {
        STATUS, TIMEOUT, MARK, USE, ID, SECMARK, ZONE, MARK_MASK, LABELS, LABELS_MASK, STATUS_MASK, TIMESTAMP_EVENT
    };

    static final NlaWalker.NestSchema CTNETLINK_SCHEMA = (depth, parent, type, flagged) -> {
        if (depth == 0) {
            return contains(TOP_NESTS, type) || (!contains(TOP_LEAVES, type) && flagged);
        }
        if (depth == 1) {
            return switch (parent) {
                case TUPLE_ORIG, TUPLE_REPLY, TUPLE_MASTER -> type == TUPLE_IP || type == TUPLE_PROTO;
                case PROTOINFO -> true;
                case COUNTERS_ORIG, COUNTERS_REPLY, SEQ_ADJ_ORIG, SEQ_ADJ_REPLY, SECCTX, TIMESTAMP, SYNPROXY -> false;
                default -> flagged;
            };
        }
        return flagged;
    };

    /** Parses the message starting at {@code off}; {@code len} bytes are available (one recv()). */
    public ConntrackMessage parse(byte[] buf, int off, int len, long observedAtNanos) throws CtnetlinkParseException {
        if (off < 0 || len < 0 || off + len > buf.length) {
            throw new CtnetlinkParseException(off, "range " + off + "+" + len + " outside a buffer of " + buf.length);
        }
        if (len < NLMSG_HDRLEN + NFGENMSG_LEN) {
            throw new CtnetlinkParseException(off, len + " bytes, shorter than nlmsghdr + nfgenmsg");
        }
        WireReader r = new WireReader(buf);
        long nlmsgLen = r.u32le(off);
        if (nlmsgLen < NLMSG_HDRLEN + NFGENMSG_LEN || nlmsgLen > len) {
            throw new CtnetlinkParseException(off, "nlmsg_len " + nlmsgLen + " outside 20.." + len);
        }
        int msgType = r.u16le(off + 4);
        int flags = r.u16le(off + 6);
        if (msgType >> 8 != NFNL_SUBSYS_CTNETLINK) {
            throw new CtnetlinkParseException(
                    off + 4,
                    "nlmsg_type 0x" + Integer.toHexString(msgType) + " is not ctnetlink (subsystem "
                            + NFNL_SUBSYS_CTNETLINK + ")");
        }
        EventType type = switch (msgType & 0xff) {
            case IPCTNL_MSG_CT_NEW -> (flags & NLM_F_CREATE) != 0 ? EventType.NEW : EventType.UPDATE;
            case IPCTNL_MSG_CT_DELETE -> EventType.DESTROY;
            default ->
                throw new CtnetlinkParseException(
                        off + 4, "ctnetlink message " + (msgType & 0xff) + " is not a conntrack event");
        };
        int end = off + (int) nlmsgLen;
        List<NlaNode> top = new NlaWalker(buf).walk(off + NLMSG_HDRLEN + NFGENMSG_LEN, end, 0, CTNETLINK_SCHEMA, 0);
        ConntrackMessage.Builder b = ConntrackMessage.builder()
                .type(type)
                .family(buf[off + NLMSG_HDRLEN] & 0xff)
                .wireSize((int) nlmsgLen)
                .observedAtNanos(observedAtNanos);
        NlAttribute[] present = new NlAttribute[top.size()];
        for (int i = 0; i < present.length; i++) {
            NlaNode n = top.get(i);
            present[i] = n.toAttribute();
            decodeTop(r, n, b);
        }
        return b.attributes(new PresentAttributes(List.of(present), false)).build();
    }

    public ConntrackMessage parse(byte[] message) throws CtnetlinkParseException {
        return parse(message, 0, message.length, ConntrackMessage.ABSENT);
    }

    private static void decodeTop(WireReader r, NlaNode n, ConntrackMessage.Builder b) throws CtnetlinkParseException {
        switch (n.type()) {
            case TUPLE_ORIG -> b.orig(TupleDecoder.decode(r, n, b));
            case TUPLE_REPLY -> b.reply(TupleDecoder.decode(r, n, b));
            case TUPLE_MASTER -> b.master(TupleDecoder.decode(r, n, b));
            case STATUS -> b.status(r.be32(n, 4));
            case TIMEOUT -> b.timeout(r.be32(n, 4));
            case MARK -> b.mark(r.be32(n, 4));
            case USE -> b.use(r.be32(n, 4));
            case ID -> b.id(r.be32(n, 4));
            case ZONE -> b.zone(r.be16(n));
            case TIMESTAMP_EVENT -> b.eventTimestampNanos(r.be64(n));
            case PROTOINFO -> decodeProtoinfo(r, n, b);
            case COUNTERS_ORIG -> b.origCounters(counters(r, n));
            case COUNTERS_REPLY -> b.replyCounters(counters(r, n));
            case TIMESTAMP -> {
                NlaNode start = n.child(TIMESTAMP_START);
                NlaNode stop = n.child(TIMESTAMP_STOP);
                if (start != null) {
                    b.timestampStart(r.be64(start));
                }
                if (stop != null) {
                    b.timestampStop(r.be64(stop));
                }
            }
            case HELP -> {
                NlaNode name = n.child(HELP_NAME);
                b.helper(name == null ? null : r.cString(name));
            }
            case SECCTX -> {
                NlaNode name = n.child(SECCTX_NAME);
                b.secctx(name == null ? null : r.cString(name));
            }
            case LABELS -> b.labels(r.bytes(n));
            case SEQ_ADJ_ORIG -> b.seqAdjOrig(seqAdj(r, n));
            case SEQ_ADJ_REPLY -> b.seqAdjReply(seqAdj(r, n));
            default -> b.unknown(new UnknownAttribute("", n.type(), n.payloadLength(), n.headerOffset()));
        }
    }

    private static void decodeProtoinfo(WireReader r, NlaNode n, ConntrackMessage.Builder b)
            throws CtnetlinkParseException {
        for (NlaNode p : n.children()) {
            if (p.type() != PROTOINFO_TCP) {
                b.unknown(
                        new UnknownAttribute(String.valueOf(PROTOINFO), p.type(), p.payloadLength(), p.headerOffset()));
                continue;
            }
            int[] v = {-1, -1, -1, -1, -1, -1, -1};
            for (NlaNode t : p.children()) {
                switch (t.type()) {
                    case PROTOINFO_TCP_STATE -> v[0] = r.u8(t);
                    case PROTOINFO_TCP_WSCALE_ORIGINAL -> v[1] = r.u8(t);
                    case PROTOINFO_TCP_WSCALE_REPLY -> v[2] = r.u8(t);
                    case PROTOINFO_TCP_FLAGS_ORIGINAL -> {
                        v[3] = r.u8at(t, 0, 2);
                        v[4] = r.u8at(t, 1, 2);
                    }
                    case PROTOINFO_TCP_FLAGS_REPLY -> {
                        v[5] = r.u8at(t, 0, 2);
                        v[6] = r.u8at(t, 1, 2);
                    }
                    default ->
                        b.unknown(new UnknownAttribute(
                                PROTOINFO + "/" + PROTOINFO_TCP, t.type(), t.payloadLength(), t.headerOffset()));
                }
            }
            b.tcp(new TcpProtoInfo(v[0], v[1], v[2], v[3], v[4], v[5], v[6]));
        }
    }

    private static DirectionCounters counters(WireReader r, NlaNode n) throws CtnetlinkParseException {
        NlaNode p = n.child(COUNTERS_PACKETS);
        NlaNode by = n.child(COUNTERS_BYTES);
        return new DirectionCounters(p == null ? -1 : r.be64(p), by == null ? -1 : r.be64(by));
    }

    private static SeqAdjustment seqAdj(WireReader r, NlaNode n) throws CtnetlinkParseException {
        NlaNode pos = n.child(SEQADJ_CORRECTION_POS);
        NlaNode before = n.child(SEQADJ_OFFSET_BEFORE);
        NlaNode after = n.child(SEQADJ_OFFSET_AFTER);
        return new SeqAdjustment(
                pos == null ? -1 : r.be32(pos, 4),
                before == null ? -1 : r.be32(before, 4),
                after == null ? -1 : r.be32(after, 4));
    }

    static boolean contains(int[] a, int v) {
        for (int x : a) {
            if (x == v) {
                return true;
            }
        }
        return false;
    }

    /** Typed reads of attribute payloads, each checking the payload is long enough first. */
    static final class WireReader {
        private final byte[] buf;

        WireReader(byte[] buf) {
            this.buf = buf;
        }

        long u32le(int off) {
            return (buf[off] & 0xffL)
                    | (buf[off + 1] & 0xffL) << 8
                    | (buf[off + 2] & 0xffL) << 16
                    | (buf[off + 3] & 0xffL) << 24;
        }

        int u16le(int off) {
            return (buf[off] & 0xff) | (buf[off + 1] & 0xff) << 8;
        }

        int u8(NlaNode n) throws CtnetlinkParseException {
            return u8at(n, 0, 1);
        }

        int u8at(NlaNode n, int index, int minLen) throws CtnetlinkParseException {
            need(n, minLen);
            return buf[n.payloadOffset() + index] & 0xff;
        }

        int be16(NlaNode n) throws CtnetlinkParseException {
            need(n, 2);
            int o = n.payloadOffset();
            return (buf[o] & 0xff) << 8 | (buf[o + 1] & 0xff);
        }

        long be32(NlaNode n, int minLen) throws CtnetlinkParseException {
            need(n, minLen);
            int o = n.payloadOffset();
            return (buf[o] & 0xffL) << 24
                    | (buf[o + 1] & 0xffL) << 16
                    | (buf[o + 2] & 0xffL) << 8
                    | (buf[o + 3] & 0xffL);
        }

        long be64(NlaNode n) throws CtnetlinkParseException {
            need(n, 8);
            long v = 0;
            for (int i = 0; i < 8; i++) {
                v = v << 8 | (buf[n.payloadOffset() + i] & 0xffL);
            }
            return v;
        }

        byte[] bytes(NlaNode n) {
            return Arrays.copyOfRange(buf, n.payloadOffset(), n.payloadOffset() + n.payloadLength());
        }

        byte[] exactly(NlaNode n, int len) throws CtnetlinkParseException {
            if (n.payloadLength() != len) {
                throw new CtnetlinkParseException(
                        n.headerOffset(),
                        "attribute " + n.type() + " has " + n.payloadLength() + " payload bytes, expected " + len);
            }
            return bytes(n);
        }

        /** NLA_NUL_STRING as nla_put_string() writes it: text up to the first NUL. */
        String cString(NlaNode n) {
            int o = n.payloadOffset();
            int e = o;
            while (e < o + n.payloadLength() && buf[e] != 0) {
                e++;
            }
            return new String(buf, o, e - o, StandardCharsets.UTF_8);
        }

        private void need(NlaNode n, int len) throws CtnetlinkParseException {
            if (n.payloadLength() < len) {
                throw new CtnetlinkParseException(
                        n.headerOffset(),
                        "attribute " + n.type() + " has " + n.payloadLength() + " payload bytes, needs " + len);
            }
        }
    }
}
