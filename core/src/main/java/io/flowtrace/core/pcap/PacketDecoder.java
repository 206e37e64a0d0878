package io.flowtrace.core.pcap;

/**
 * Decodes a captured frame (link layer → IPv4/IPv6 → TCP, and UDP when asked) into a reusable
 * {@link DecodedPacket}. Stateless and allocation-free: hand-written rather than a libpcap wrapper
 * because those allocate per packet, and this runs for every packet of every capture.
 *
 * <p>UDP is decoded only by a decoder made with {@link #withUdp()}: the default decoder reports
 * UDP as {@link DecodeStatus#NOT_TCP} as before, so consumers that handle TCP only are unchanged.
 * The UDP branch comes after the TCP test, so the TCP path does no extra work (docs/decoding.md).
 *
 * <p>{@link #decode} (link layers) and {@code decodeIpv6} (the extension-header walk) are longer than
 * the house's 60 lines on purpose: each is one pass over one header layer with offsets in locals,
 * and a split would pass five offsets around or return them in an allocated holder on the per-packet
 * path. TCP options are {@link TcpOptions}.
 */
public final class PacketDecoder {
    private static final int ETHERTYPE_IPV4 = 0x0800;
    private static final int ETHERTYPE_IPV6 = 0x86DD;
    private static final int ETHERTYPE_VLAN = 0x8100;
    private static final int ETHERTYPE_QINQ = 0x88A8;
    private static final int ETHERTYPE_QINQ_OLD = 0x9100;
    private static final int PROTO_TCP = 6;
    private static final int PROTO_UDP = 17;
    private static final int UDP_HEADER = 8;
    private static final int MAX_EXTENSION_HEADERS = 16;

    private final boolean decodeUdp;

    /** A decoder for TCP only: UDP datagrams are {@link DecodeStatus#NOT_TCP}. */
    public PacketDecoder() {
        this(false);
    }

    private PacketDecoder(boolean decodeUdp) {
        this.decodeUdp = decodeUdp;
    }

    /** A decoder that also decodes UDP headers ({@link DecodeStatus#UDP}), for the OpenVPN analysis. */
    public static PacketDecoder withUdp() {
        return new PacketDecoder(true);
    }

    /** Decodes {@code rec} into {@code out}; returns {@code out.status}. */
    public DecodeStatus decode(CaptureRecord rec, DecodedPacket out) {
        return decode(
                rec.data,
                rec.dataOffset,
                rec.capturedLength,
                rec.wireLength,
                rec.linkType,
                rec.timestampNanos,
                rec.interfaceId,
                out);
    }

    public DecodeStatus decode(
            byte[] b, int off, int capLen, int wireLen, int linkType, long tsNanos, int ifaceId, DecodedPacket out) {
        out.resetTcpFields();
        out.timestampNanos = tsNanos;
        out.interfaceId = ifaceId;
        out.linkType = linkType;
        out.capturedLength = capLen;
        out.wireLength = wireLen;
        int end = off + capLen;
        int etherType;
        int p;
        switch (linkType) {
            case LinkType.ETHERNET -> {
                if (capLen < 14) {
                    return fail(out, DecodeStatus.TRUNCATED, "ethernet header truncated");
                }
                etherType = u16(b, off + 12);
                p = off + 14;
                while (etherType == ETHERTYPE_VLAN || etherType == ETHERTYPE_QINQ || etherType == ETHERTYPE_QINQ_OLD) {
                    if (p + 4 > end) {
                        return fail(out, DecodeStatus.TRUNCATED, "VLAN tag truncated");
                    }
                    int vid = u16(b, p) & 0x0fff;
                    if (out.vlanOuter < 0) {
                        out.vlanOuter = vid;
                    } else if (out.vlanInner < 0) {
                        out.vlanInner = vid;
                    }
                    etherType = u16(b, p + 2);
                    p += 4;
                }
            }
            case LinkType.LINUX_SLL -> {
                if (capLen < 16) {
                    return fail(out, DecodeStatus.TRUNCATED, "linux cooked (SLL) header truncated");
                }
                etherType = u16(b, off + 14);
                p = off + 16;
            }
            case LinkType.LINUX_SLL2 -> {
                if (capLen < 20) {
                    return fail(out, DecodeStatus.TRUNCATED, "linux cooked (SLL2) header truncated");
                }
                etherType = u16(b, off);
                p = off + 20;
            }
            case LinkType.RAW, LinkType.RAW_BSD, LinkType.RAW_OPENBSD, LinkType.IPV4, LinkType.IPV6 -> {
                if (capLen < 1) {
                    return fail(out, DecodeStatus.TRUNCATED, "empty raw IP frame");
                }
                etherType = (b[off] & 0xf0) == 0x60 ? ETHERTYPE_IPV6 : ETHERTYPE_IPV4;
                p = off;
            }
            case LinkType.NULL, LinkType.LOOP -> {
                if (capLen < 4) {
                    return fail(out, DecodeStatus.TRUNCATED, "loopback header truncated");
                }
                // NULL: address family in the capturing host's byte order; LOOP: network order.
                int le = (b[off] & 0xff)
                        | (b[off + 1] & 0xff) << 8
                        | (b[off + 2] & 0xff) << 16
                        | (b[off + 3] & 0xff) << 24;
                int be = Integer.reverseBytes(le);
                int family = linkType == LinkType.LOOP ? be : ((le & 0xffff0000) == 0 ? le : be);
                etherType = switch (family) {
                    case 2 -> ETHERTYPE_IPV4;
                    case 10, 24, 28, 30 -> ETHERTYPE_IPV6; // Linux, NetBSD/OpenBSD, FreeBSD, macOS
                    default -> -1;
                };
                p = off + 4;
            }
            default -> {
                return fail(out, DecodeStatus.UNSUPPORTED_LINK, "unsupported link type");
            }
        }
        int wireIpLen = wireLen - (p - off);
        if (etherType == ETHERTYPE_IPV4) {
            return decodeIpv4(b, p, end, wireIpLen, out);
        }
        if (etherType == ETHERTYPE_IPV6) {
            return decodeIpv6(b, p, end, wireIpLen, out);
        }
        return fail(out, DecodeStatus.NOT_IP, "not IP");
    }

    private DecodeStatus decodeIpv4(byte[] b, int p, int end, int wireIpLen, DecodedPacket out) {
        if (p + 20 > end) {
            return fail(out, DecodeStatus.TRUNCATED, "IPv4 header truncated");
        }
        int vihl = b[p] & 0xff;
        if ((vihl >> 4) != 4) {
            return fail(out, DecodeStatus.MALFORMED, "IP version is not 4");
        }
        int ihl = (vihl & 0x0f) * 4;
        if (ihl < 20) {
            return fail(out, DecodeStatus.MALFORMED, "IPv4 header length below 20");
        }
        out.ipVersion = 4;
        out.addrLength = 4;
        int total = u16(b, p + 2);
        // TSO/GSO on the capture host leaves total length 0 in outgoing super-segments: use the wire length.
        if (total == 0 && wireIpLen > 0) {
            total = wireIpLen;
        }
        out.ipTotalLength = total;
        out.ipId = u16(b, p + 4);
        int fragField = u16(b, p + 6);
        out.ttl = b[p + 8] & 0xff;
        int proto = b[p + 9] & 0xff;
        System.arraycopy(b, p + 12, out.srcAddr, 0, 4);
        System.arraycopy(b, p + 16, out.dstAddr, 0, 4);
        if (total < ihl) {
            return fail(out, DecodeStatus.MALFORMED, "IPv4 total length below header length");
        }
        if ((fragField & 0x1fff) != 0) {
            return fail(out, DecodeStatus.NON_FIRST_FRAGMENT, "non-first IPv4 fragment");
        }
        out.fragmented = (fragField & 0x2000) != 0;
        if (proto != PROTO_TCP) {
            return notTcpOverIpv4(b, p, ihl, end, total, proto, out);
        }
        if (p + ihl > end) {
            return fail(out, DecodeStatus.TRUNCATED, "IPv4 options truncated");
        }
        return decodeTcp(b, p + ihl, end, total - ihl, out);
    }

    /** Kept out of {@link #decodeIpv4} so the TCP path's method stays as small as it was (JIT inlining). */
    private DecodeStatus notTcpOverIpv4(byte[] b, int p, int ihl, int end, int total, int proto, DecodedPacket out) {
        if (proto == PROTO_UDP && decodeUdp) {
            if (p + ihl > end) {
                return fail(out, DecodeStatus.TRUNCATED, "IPv4 options truncated");
            }
            return decodeUdp(b, p + ihl, end, total - ihl, out);
        }
        return fail(out, DecodeStatus.NOT_TCP, "not TCP");
    }

    private DecodeStatus decodeIpv6(byte[] b, int p, int end, int wireIpLen, DecodedPacket out) {
        if (p + 40 > end) {
            return fail(out, DecodeStatus.TRUNCATED, "IPv6 header truncated");
        }
        if ((b[p] & 0xf0) != 0x60) {
            return fail(out, DecodeStatus.MALFORMED, "IP version is not 6");
        }
        out.ipVersion = 6;
        out.addrLength = 16;
        int payload = u16(b, p + 4);
        if (payload == 0 && wireIpLen > 40) {
            payload = wireIpLen - 40; // jumbogram or TSO super-segment
        }
        out.ipTotalLength = 40 + payload;
        int next = b[p + 6] & 0xff;
        out.ttl = b[p + 7] & 0xff;
        System.arraycopy(b, p + 8, out.srcAddr, 0, 16);
        System.arraycopy(b, p + 24, out.dstAddr, 0, 16);
        int q = p + 40;
        int remaining = payload;
        for (int i = 0; i < MAX_EXTENSION_HEADERS; i++) {
            switch (next) {
                case PROTO_TCP -> {
                    return decodeTcp(b, q, end, remaining, out);
                }
                case 0, 43, 60 -> { // hop-by-hop, routing, destination options: (len + 1) * 8 bytes
                    if (q + 2 > end) {
                        return fail(out, DecodeStatus.TRUNCATED, "IPv6 extension header truncated");
                    }
                    int len = ((b[q + 1] & 0xff) + 1) * 8;
                    next = b[q] & 0xff;
                    q += len;
                    remaining -= len;
                }
                case 44 -> { // fragment header, 8 bytes
                    if (q + 8 > end) {
                        return fail(out, DecodeStatus.TRUNCATED, "IPv6 fragment header truncated");
                    }
                    int fragField = u16(b, q + 2);
                    if ((fragField & 0xfff8) != 0) {
                        return fail(out, DecodeStatus.NON_FIRST_FRAGMENT, "non-first IPv6 fragment");
                    }
                    out.fragmented = (fragField & 1) != 0;
                    next = b[q] & 0xff;
                    q += 8;
                    remaining -= 8;
                }
                case 51 -> { // authentication header: (len + 2) * 4 bytes
                    if (q + 2 > end) {
                        return fail(out, DecodeStatus.TRUNCATED, "IPv6 AH truncated");
                    }
                    int len = ((b[q + 1] & 0xff) + 2) * 4;
                    next = b[q] & 0xff;
                    q += len;
                    remaining -= len;
                }
                default -> {
                    return next == PROTO_UDP && decodeUdp
                            ? decodeUdp(b, q, end, remaining, out)
                            : fail(out, DecodeStatus.NOT_TCP, "not TCP");
                }
            }
            if (remaining < 0) {
                return fail(out, DecodeStatus.MALFORMED, "IPv6 extension headers exceed payload length");
            }
        }
        return fail(out, DecodeStatus.MALFORMED, "too many IPv6 extension headers");
    }

    private DecodeStatus decodeTcp(byte[] b, int p, int end, int segmentLength, DecodedPacket out) {
        if (p + 20 > end) {
            return fail(out, DecodeStatus.TRUNCATED, "TCP header truncated");
        }
        out.srcPort = u16(b, p);
        out.dstPort = u16(b, p + 2);
        out.seq = u32(b, p + 4);
        out.ack = u32(b, p + 8);
        int dataOffset = ((b[p + 12] & 0xff) >> 4) * 4;
        out.flags = ((b[p + 12] & 0x01) << 8) | (b[p + 13] & 0xff);
        out.window = u16(b, p + 14);
        if (dataOffset < 20) {
            return fail(out, DecodeStatus.MALFORMED, "TCP data offset below 20");
        }
        if (dataOffset > segmentLength) {
            return fail(out, DecodeStatus.MALFORMED, "TCP header longer than the IP payload");
        }
        out.tcpHeaderLength = dataOffset;
        out.payloadLength = segmentLength - dataOffset;
        int optEnd = p + dataOffset;
        if (optEnd > end) {
            out.truncation |= DecodedPacket.TRUNCATED_OPTIONS;
        }
        if (optEnd + out.payloadLength > end) {
            out.truncation |= DecodedPacket.TRUNCATED_PAYLOAD;
        }
        TcpOptions.decode(b, p + 20, Math.min(optEnd, end), optEnd > end, out);
        out.payloadOffset = optEnd; // for the OpenVPN-over-TCP framing (core/openvpn/OpenVpnTcpStreams.java)
        out.payloadCaptured = Math.max(0, Math.min(end - optEnd, out.payloadLength));
        out.status = DecodeStatus.TCP;
        return DecodeStatus.TCP;
    }

    /**
     * UDP header (RFC 768). The payload length comes from the UDP length field, checked against
     * the IP payload; the payload's offset in the frame is kept so a protocol view (OpenVPN) can
     * read it before the record buffer is reused.
     */
    private DecodeStatus decodeUdp(byte[] b, int p, int end, int ipPayloadLength, DecodedPacket out) {
        if (p + UDP_HEADER > end) {
            return fail(out, DecodeStatus.TRUNCATED, "UDP header truncated");
        }
        out.srcPort = u16(b, p);
        out.dstPort = u16(b, p + 2);
        int udpLength = u16(b, p + 4);
        if (udpLength < UDP_HEADER) {
            return fail(out, DecodeStatus.MALFORMED, "UDP length below 8");
        }
        if (udpLength > ipPayloadLength) {
            return fail(out, DecodeStatus.MALFORMED, "UDP length beyond the IP payload");
        }
        out.payloadLength = udpLength - UDP_HEADER;
        out.payloadOffset = p + UDP_HEADER;
        out.payloadCaptured = Math.max(0, Math.min(out.payloadLength, end - out.payloadOffset));
        if (out.payloadCaptured < out.payloadLength) {
            out.truncation |= DecodedPacket.TRUNCATED_PAYLOAD;
        }
        out.status = DecodeStatus.UDP;
        return DecodeStatus.UDP;
    }

    private static DecodeStatus fail(DecodedPacket out, DecodeStatus status, String reason) {
        out.status = status;
        out.reason = reason;
        return status;
    }

    static int u16(byte[] b, int p) {
        return ((b[p] & 0xff) << 8) | (b[p + 1] & 0xff);
    }

    static long u32(byte[] b, int p) {
        return (((long) (b[p] & 0xff)) << 24)
                | ((b[p + 1] & 0xff) << 16)
                | ((b[p + 2] & 0xff) << 8)
                | (b[p + 3] & 0xff);
    }
}
