package io.flowtrace.core.openvpn;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The control-channel wrapping of each OpenVPN flow: the configured one, or, when the wire says
 * {@link OpenVpnWire#detect()}, the one the flow's first deciding packet showed
 * ({@link OpenVpnLayoutDetector}; a flow's first packet, the client's hard reset, decides in every
 * recorded setup of testdata/openvpn). Until a packet decides, the flow is read as plain and its
 * control packets are counted as {@link #undecided()}. Bounded: the least recently used flow is
 * forgotten beyond {@link #MAX_FLOWS} (it is found again from its next control packet).
 */
public final class OpenVpnFlowLayouts {
    /** Flows remembered at once. */
    public static final int MAX_FLOWS = 65_536;

    private final OpenVpnWire wire;
    private final OpenVpnWire undecidedLayout;
    private final Map<String, OpenVpnWire> flows = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, OpenVpnWire> eldest) {
            return size() > MAX_FLOWS;
        }
    };
    private long undecided;

    public OpenVpnFlowLayouts(OpenVpnWire wire) {
        this.wire = wire;
        this.undecidedLayout = wire.withLayout(0, false);
    }

    /**
     * The layout to read one packet of flow {@code flowKey} with: {@code b[off, off + captured)},
     * the captured part of an OpenVPN packet of {@code length} bytes, captured at {@code timeNanos}.
     */
    public OpenVpnWire layout(String flowKey, byte[] b, int off, int captured, int length, long timeNanos) {
        if (!wire.detect()) {
            return wire;
        }
        OpenVpnWire known = flows.get(flowKey);
        if (known != null) {
            return known;
        }
        int found = OpenVpnLayoutDetector.detect(b, off, captured, length, timeNanos);
        if (found == OpenVpnLayoutDetector.UNDECIDED) {
            if (captured > 0 && !OpenVpnOpcode.isData((b[off] & 0xff) >>> 3)) {
                undecided++;
            }
            return undecidedLayout;
        }
        OpenVpnWire w =
                found == OpenVpnLayoutDetector.TLS_CRYPT ? wire.withLayout(0, true) : wire.withLayout(found, false);
        flows.put(flowKey, w);
        return w;
    }

    /** Control and ACK packets read as plain because no packet of their flow had decided yet. */
    public long undecided() {
        return undecided;
    }
}
