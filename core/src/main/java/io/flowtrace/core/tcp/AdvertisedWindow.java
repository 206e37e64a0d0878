package io.flowtrace.core.tcp;

import io.flowtrace.core.pcap.DecodedPacket;

/**
 * The receive window each packet advertises, in bytes, and the smallest and largest one each side
 * advertised over the flow ({@code window.*} in docs/metrics.md). The header field is shifted by the
 * scale the handshake agreed (RFC 7323 §2.2: only when both SYNs carried the option; never in a SYN
 * itself; shifts above 14 count as 14, §2.3), as tshark's {@code tcp.window_size} is; without both
 * SYNs the field stays unscaled and the scale is unknown.
 */
public final class AdvertisedWindow {
    /** RFC 7323 §2.3: a shift above 14 is used as 14. */
    private static final int MAX_SHIFT = 14;

    private AdvertisedWindow() {}

    /**
     * The window packet {@code p} from {@code acker} advertises, in bytes; counted in the acker's
     * {@code window.*} unless it is a reset (Linux resets carry window 0: they advertise nothing).
     */
    static long observe(DecodedPacket p, SenderState acker) {
        long window = p.window;
        if ((p.flags & DecodedPacket.SYN) == 0 && acker.scalingAgreed && acker.windowScale > 0) {
            window <<= Math.min(acker.windowScale, MAX_SHIFT);
        }
        if ((p.flags & DecodedPacket.RST) == 0) {
            TcpDirectionStats st = acker.stats;
            st.windowMinBytes = st.windowMinBytes < 0 ? window : Math.min(st.windowMinBytes, window);
            st.windowMaxBytes = Math.max(st.windowMaxBytes, window);
        }
        return window;
    }

    /**
     * The shift applied to the windows one side advertised: its SYN's option when both SYNs offered
     * one, 0 when both SYNs were seen and one lacked it (no scaling), -1 when the capture missed a SYN
     * of the handshake (the side's windows are then reported unscaled).
     */
    public static int scale(TcpFlowAnalyzer flow, boolean ofClient) {
        SetupStats setup = flow.setup();
        if (setup.firstSynNanos < 0 || setup.firstSynAckNanos < 0) {
            return -1;
        }
        int own = flow.windowScale(ofClient);
        int peer = flow.windowScale(!ofClient);
        return own >= 0 && peer >= 0 ? Math.min(own, MAX_SHIFT) : 0;
    }
}
