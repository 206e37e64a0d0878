package io.flowtrace.core.pcap;

/**
 * The TCP options of a segment into {@link DecodedPacket} (MSS, window scale, SACK blocks,
 * timestamps), for {@link PacketDecoder}: one pass over the option bytes, no allocation. One loop
 * with a case per option kind reads like the option list of RFC 9293 §3.2, so it stays one method.
 */
final class TcpOptions {
    private TcpOptions() {}

    // LONG-METHOD: one case per option kind on the per-packet path, read like RFC 9293 §3.2's option list
    /** TCP options (RFC 9293 §3.2, RFC 7323, RFC 2018). Stops at the first impossible length. */
    static void decode(byte[] b, int p, int end, boolean cut, DecodedPacket out) {
        while (p < end) {
            int kind = b[p] & 0xff;
            if (kind == 0) {
                return;
            }
            if (kind == 1) {
                p++;
                continue;
            }
            if (p + 1 >= end) {
                if (!cut) {
                    out.badOptions = true;
                }
                return;
            }
            int len = b[p + 1] & 0xff;
            if (len < 2) {
                out.badOptions = true;
                return;
            }
            if (p + len > end) {
                if (!cut) {
                    out.badOptions = true;
                } else {
                    decodeCut(b, p, end, kind, out);
                }
                return;
            }
            switch (kind) {
                case 2 -> {
                    if (len == 4) {
                        out.mss = PacketDecoder.u16(b, p + 2);
                    } else {
                        out.badOptions = true;
                    }
                }
                case 3 -> {
                    if (len == 3) {
                        out.windowScale = b[p + 2] & 0xff;
                    } else {
                        out.badOptions = true;
                    }
                }
                case 4 -> out.sackPermitted = true;
                case 5 -> {
                    int blocks = (len - 2) / 8;
                    if ((len - 2) % 8 != 0 || blocks > DecodedPacket.MAX_SACK_BLOCKS) {
                        out.badOptions = true;
                    }
                    int n = Math.min(blocks, DecodedPacket.MAX_SACK_BLOCKS);
                    for (int i = 0; i < n; i++) {
                        out.sackLeft[i] = PacketDecoder.u32(b, p + 2 + 8 * i);
                        out.sackRight[i] = PacketDecoder.u32(b, p + 6 + 8 * i);
                    }
                    out.sackCount = n;
                }
                case 8 -> {
                    if (len == 10) {
                        out.tsVal = PacketDecoder.u32(b, p + 2);
                        out.tsEcr = PacketDecoder.u32(b, p + 6);
                    } else {
                        out.badOptions = true;
                    }
                }
                default -> {} // MPTCP, TFO, MD5, ...: skipped by length
            }
            p += len;
        }
    }

    /**
     * The snap length cut this option: keep the fields that are wholly captured (a TSval whose
     * TSecr is missing, the complete SACK blocks), as tshark does.
     */
    private static void decodeCut(byte[] b, int p, int end, int kind, DecodedPacket out) {
        if (kind == 8 && p + 6 <= end) {
            out.tsVal = PacketDecoder.u32(b, p + 2);
        } else if (kind == 5) {
            int n = Math.min((end - p - 2) / 8, DecodedPacket.MAX_SACK_BLOCKS);
            for (int i = 0; i < n; i++) {
                out.sackLeft[i] = PacketDecoder.u32(b, p + 2 + 8 * i);
                out.sackRight[i] = PacketDecoder.u32(b, p + 6 + 8 * i);
            }
            out.sackCount = Math.max(n, 0);
        }
    }
}
