package io.flowtrace.core.openvpn;

import java.util.Arrays;

/**
 * How OpenVPN packets look on the wire at one deployment: which UDP ports carry them and how the
 * control channel is wrapped. {@code tlsAuthDigestBytes} is the HMAC size of {@code --tls-auth}
 * (20 for SHA1, the default {@code --auth}; 32 for SHA256), 0 without tls-auth; with
 * {@code tlsCrypt} ({@code --tls-crypt}, {@code --tls-crypt-v2}) everything after the replay
 * packet-id and time is encrypted, so control packets are counted as opaque.
 */
public record OpenVpnWire(int[] ports, int tlsAuthDigestBytes, boolean tlsCrypt) {
    /** IANA's port for OpenVPN. */
    public static final int DEFAULT_PORT = 1194;

    public static OpenVpnWire defaults() {
        return new OpenVpnWire(new int[] {DEFAULT_PORT}, 0, false);
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

    public boolean isOpenVpnPort(int port) {
        for (int p : ports) {
            if (p == port) {
                return true;
            }
        }
        return false;
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
                && tlsCrypt == w.tlsCrypt;
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(ports) * 31 + tlsAuthDigestBytes * 2 + (tlsCrypt ? 1 : 0);
    }

    @Override
    public String toString() {
        return "OpenVpnWire[ports=" + Arrays.toString(ports) + ", tlsAuthDigestBytes=" + tlsAuthDigestBytes
                + ", tlsCrypt=" + tlsCrypt + "]";
    }
}
