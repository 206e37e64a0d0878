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

    private LinkType() {}

    public static boolean isSupported(int linkType) {
        return switch (linkType) {
            case NULL, ETHERNET, RAW_BSD, RAW_OPENBSD, RAW, LOOP, LINUX_SLL, IPV4, IPV6, LINUX_SLL2 -> true;
            default -> false;
        };
    }
}
