package io.flowtrace.core.openvpn;

import java.util.Arrays;

/**
 * How OpenVPN packets look on the wire at one deployment: which ports carry them and how the
 * control channel is wrapped. {@code tlsAuthDigestBytes} is the HMAC size of {@code --tls-auth}
 * (20 for SHA1, the default {@code --auth}; 32 for SHA256), 0 without tls-auth; with
 * {@code tlsCrypt} ({@code --tls-crypt}, {@code --tls-crypt-v2}) everything after the replay
 * packet-id, time and tag is encrypted, so control packets are counted as opaque. With
 * {@code detect} the wrapping is found from each flow's own packets ({@link OpenVpnLayoutDetector},
 * {@link OpenVpnFlowLayouts}), not configured: the two layout fields are then what an undecided
 * flow is read as (plain) or, in a flow's own copy, what its packets showed.
 */
public record OpenVpnWire(int[] ports, int tlsAuthDigestBytes, boolean tlsCrypt, boolean detect) {
    /** IANA's port for OpenVPN. */
    public static final int DEFAULT_PORT = 1194;

    /** Port 1194, wrapping detected per flow. */
    public static OpenVpnWire defaults() {
        return new OpenVpnWire(new int[] {DEFAULT_PORT}, 0, false, true);
    }

    /** A fixed layout (no detection). */
    public OpenVpnWire(int[] ports, int tlsAuthDigestBytes, boolean tlsCrypt) {
        this(ports, tlsAuthDigestBytes, tlsCrypt, false);
    }

    public OpenVpnWire {
        ports = ports.clone();
        if (tlsAuthDigestBytes < 0 || tlsAuthDigestBytes > 64) {
            throw new IllegalArgumentException("tls-auth digest size must be 0..64 bytes: " + tlsAuthDigestBytes);
        }
        if (tlsCrypt && tlsAuthDigestBytes > 0) {
            throw new IllegalArgumentException("tls-auth and tls-crypt exclude each other");
        }
    }

    /**
     * The same ports with the layout one flow was found to have; {@code detect} stays as it was,
     * saying whether the layout came from the packets or from an option.
     */
    public OpenVpnWire withLayout(int digestBytes, boolean crypt) {
        return new OpenVpnWire(ports, digestBytes, crypt, detect);
    }

    public boolean isOpenVpnPort(int port) {
        for (int p : ports) {
            if (p == port) {
                return true;
            }
        }
        return false;
    }

    /** The wrapping as the reports name it: "plain", "tls-auth" or "tls-crypt". */
    public String wrapping() {
        return tlsCrypt ? "tls-crypt" : tlsAuthDigestBytes > 0 ? "tls-auth" : "plain";
    }

    @Override
    public int[] ports() {
        return ports.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof OpenVpnWire w
                && Arrays.equals(ports, w.ports)
                && tlsAuthDigestBytes == w.tlsAuthDigestBytes
                && tlsCrypt == w.tlsCrypt
                && detect == w.detect;
    }

    @Override
    public int hashCode() {
        return (Arrays.hashCode(ports) * 31 + tlsAuthDigestBytes * 4 + (tlsCrypt ? 2 : 0)) + (detect ? 1 : 0);
    }

    @Override
    public String toString() {
        return "OpenVpnWire[ports=" + Arrays.toString(ports) + ", tlsAuthDigestBytes=" + tlsAuthDigestBytes
                + ", tlsCrypt=" + tlsCrypt + ", detect=" + detect + "]";
    }
}
