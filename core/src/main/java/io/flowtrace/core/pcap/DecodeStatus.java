package io.flowtrace.core.pcap;

/** Outcome of decoding one frame down to TCP (or UDP). Only {@link #TCP} frames reach the TCP analyser. */
public enum DecodeStatus {
    /** A TCP segment; fields that the snap length cut are flagged in {@link DecodedPacket#truncation}. */
    TCP,
    /** Not IPv4/IPv6 (ARP, LLDP, ...). */
    NOT_IP,
    /** IP but not TCP (UDP, ICMP, ESP, ...). */
    NOT_TCP,
    /** A non-first IP fragment: it has no TCP header; counted and skipped. */
    NON_FIRST_FRAGMENT,
    /** Captured bytes end before the IP or TCP fixed header does. */
    TRUNCATED,
    /** Headers contradict themselves (bad version, header length beyond the packet, ...). */
    MALFORMED,
    /** A link type we do not decode. */
    UNSUPPORTED_LINK,
    /**
     * A UDP datagram, from a decoder made with {@link PacketDecoder#withUdp()} only (others report
     * {@link #NOT_TCP}); last so the ordinals of the others stay put.
     */
    UDP
}
