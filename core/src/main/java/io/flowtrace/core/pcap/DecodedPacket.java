package io.flowtrace.core.pcap;

import java.util.Arrays;

/**
 * The header fields of one TCP segment (or UDP datagram), as {@link PacketDecoder} found them. Mutable and reused
 * on the hot path: the decoder fills it for every frame without allocating. Sequence numbers are
 * the raw unsigned 32-bit values held in longs; absent options are -1.
 */
public final class DecodedPacket {
    /** Truncation bits: which parts the snap length cut off. */
    public static final int TRUNCATED_OPTIONS = 1;

    public static final int TRUNCATED_PAYLOAD = 2;

    public static final int FIN = 0x01;
    public static final int SYN = 0x02;
    public static final int RST = 0x04;
    public static final int PSH = 0x08;
    public static final int ACK = 0x10;
    public static final int URG = 0x20;
    public static final int ECE = 0x40;
    public static final int CWR = 0x80;
    public static final int NS = 0x100;

    /** Maximum SACK blocks that fit in 40 bytes of options (RFC 2018 §3). */
    public static final int MAX_SACK_BLOCKS = 4;

    public DecodeStatus status;
    /** Why decoding stopped short of TCP; a constant string, never allocated per packet. */
    public String reason;

    public long timestampNanos;
    public int interfaceId;
    public int linkType;
    public int capturedLength;
    public int wireLength;
    /** Outer and inner 802.1Q/802.1ad VLAN ids, -1 when untagged. */
    public int vlanOuter;

    public int vlanInner;

    public int ipVersion;
    public final byte[] srcAddr = new byte[16];
    public final byte[] dstAddr = new byte[16];
    /** 4 or 16. */
    public int addrLength;
    /** IPv4 identification, -1 for IPv6. */
    public int ipId;
    /** IPv4 TTL or IPv6 hop limit. */
    public int ttl;
    /** IPv4 total length, or 40 + IPv6 payload length. */
    public int ipTotalLength;
    /** First fragment of a fragmented datagram (MF set, offset 0). */
    public boolean fragmented;

    public int srcPort;
    public int dstPort;
    public long seq;
    public long ack;
    /** The 9 flag bits, NS included. */
    public int flags;
    /** Raw window field, not scaled. */
    public int window;

    public int tcpHeaderLength;
    /** TCP payload bytes from the IP lengths, or UDP payload bytes from the UDP length (not the captured bytes). */
    public int payloadLength;
    /**
     * UDP and TCP: where the payload starts in the decoded frame's byte array and how many of its
     * bytes were captured. Valid until the capture reader reuses that array.
     */
    public int payloadOffset;

    public int payloadCaptured;

    public int mss;
    public int windowScale;
    public boolean sackPermitted;
    public int sackCount;
    public final long[] sackLeft = new long[MAX_SACK_BLOCKS];
    public final long[] sackRight = new long[MAX_SACK_BLOCKS];
    public long tsVal;
    public long tsEcr;
    /** An option whose length is impossible (< 2, or past the header); parsing stopped there. */
    public boolean badOptions;

    public int truncation;

    public boolean hasFlag(int flag) {
        return (flags & flag) != 0;
    }

    public boolean hasTimestamps() {
        return tsVal >= 0;
    }

    void resetTcpFields() {
        mss = -1;
        windowScale = -1;
        sackPermitted = false;
        sackCount = 0;
        tsVal = -1;
        tsEcr = -1;
        badOptions = false;
        truncation = 0;
        fragmented = false;
        ipId = -1;
        vlanOuter = -1;
        vlanInner = -1;
        srcPort = 0;
        dstPort = 0;
        reason = null;
    }

    /** Copies every field, for callers that keep a packet beyond the next decode. */
    public void copyFrom(DecodedPacket o) {
        status = o.status;
        reason = o.reason;
        timestampNanos = o.timestampNanos;
        interfaceId = o.interfaceId;
        linkType = o.linkType;
        capturedLength = o.capturedLength;
        wireLength = o.wireLength;
        vlanOuter = o.vlanOuter;
        vlanInner = o.vlanInner;
        ipVersion = o.ipVersion;
        System.arraycopy(o.srcAddr, 0, srcAddr, 0, 16);
        System.arraycopy(o.dstAddr, 0, dstAddr, 0, 16);
        addrLength = o.addrLength;
        ipId = o.ipId;
        ttl = o.ttl;
        ipTotalLength = o.ipTotalLength;
        fragmented = o.fragmented;
        srcPort = o.srcPort;
        dstPort = o.dstPort;
        seq = o.seq;
        ack = o.ack;
        flags = o.flags;
        window = o.window;
        tcpHeaderLength = o.tcpHeaderLength;
        payloadLength = o.payloadLength;
        payloadOffset = o.payloadOffset;
        payloadCaptured = o.payloadCaptured;
        mss = o.mss;
        windowScale = o.windowScale;
        sackPermitted = o.sackPermitted;
        sackCount = o.sackCount;
        System.arraycopy(o.sackLeft, 0, sackLeft, 0, MAX_SACK_BLOCKS);
        System.arraycopy(o.sackRight, 0, sackRight, 0, MAX_SACK_BLOCKS);
        tsVal = o.tsVal;
        tsEcr = o.tsEcr;
        badOptions = o.badOptions;
        truncation = o.truncation;
    }

    /**
     * True when the source is the flow's low endpoint in canonical order (the lower address as
     * unsigned bytes, then the lower port): the order flow keys and PacketBatch headers use.
     */
    public boolean sourceIsLow() {
        int c = Arrays.compareUnsigned(srcAddr, 0, addrLength, dstAddr, 0, addrLength);
        return c < 0 || c == 0 && srcPort <= dstPort;
    }
}
