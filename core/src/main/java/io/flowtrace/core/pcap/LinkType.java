package io.flowtrace.core.pcap;

/** LINKTYPE_* values from the tcpdump.org link-layer header types registry that we decode. */
public final class LinkType {
    public static final int NULL = 0;
    public static final int ETHERNET = 1;
    /** DLT_RAW as defined on some BSDs (12) and OpenBSD (14); LINKTYPE_RAW is 101. */
    public static final int RAW_BSD = 12;

    public static final int RAW_OPENBSD = 14;
    public static final int RAW = 101;
    public static final int LOOP = 108;
    public static final int LINUX_SLL = 113;
    public static final int IPV4 = 228;
    public static final int IPV6 = 229;
    public static final int LINUX_SLL2 = 276;

    /**
     * Interface ids above this are not taken from an SLL2 header: the flow table packs the interface
     * id into 23 bits of its key ({@code PacketKeyTable.meta}), and the kernel's interface indexes of a
     * network namespace stay far below it.
     */
    static final long MAX_SLL2_INTERFACE = (1 << 23) - 1;

    private LinkType() {}

    /**
     * The interface a LINUX_SLL2 frame was captured on: the header's interface index (bytes 4-7, network
     * byte order; tcpdump.org's LINKTYPE_LINUX_SLL2). tcpdump and libpcap write it on Linux's {@code any}
     * device, where a forwarded or bridged packet is captured once on each interface it crosses: the
     * readers make it the record's {@link CaptureRecord#interfaceId}, so each copy is a flow at its own
     * interface instead of a duplicate in one flow. 0 when the header is cut short or the index is out of
     * range (0 is never a kernel interface index).
     */
    static int sll2InterfaceIndex(byte[] b, int off, int capturedLength) {
        if (capturedLength < 8) {
            return 0;
        }
        long index =
                (b[off + 4] & 0xffL) << 24 | (b[off + 5] & 0xff) << 16 | (b[off + 6] & 0xff) << 8 | (b[off + 7] & 0xff);
        return index <= MAX_SLL2_INTERFACE ? (int) index : 0;
    }

    public static boolean isSupported(int linkType) {
        return switch (linkType) {
            case NULL, ETHERNET, RAW_BSD, RAW_OPENBSD, RAW, LOOP, LINUX_SLL, IPV4, IPV6, LINUX_SLL2 -> true;
            default -> false;
        };
    }
}
