package io.flowtrace.cli.capture;

import io.flowtrace.core.openvpn.OpenVpnWire;
import picocli.CommandLine.Option;

/**
 * Which UDP ports carry OpenVPN and how its control channel is wrapped (a picocli mixin of
 * {@code analyze} and {@code agent packets}; docs/decoding.md, "OpenVPN header view").
 */
public final class OpenVpnWireOptions {
    @Option(
            names = "--openvpn-port",
            paramLabel = "PORT",
            split = ",",
            defaultValue = "1194",
            description =
                    "UDP port(s) whose packets are decoded as OpenVPN (default: ${DEFAULT-VALUE}); 0 turns it off")
    public int[] ports;

    @Option(
            names = "--openvpn-tls-auth",
            paramLabel = "BYTES",
            defaultValue = "-1",
            description = "tls-auth HMAC size to skip in control packets: 20 (SHA1), 32 (SHA256), 64 (SHA512);"
                    + " 0 = no tls-auth; default: found from each flow's packets (with tls-crypt)")
    int tlsAuthDigestBytes;

    @Option(
            names = "--openvpn-tls-crypt",
            description = "control packets are tls-crypt wrapped (counted as opaque); default: found from the packets")
    boolean tlsCrypt;

    /** Off with no port or the single port 0. */
    public boolean enabled() {
        return ports.length > 0 && !(ports.length == 1 && ports[0] == 0);
    }

    /**
     * The wire settings, or null when OpenVPN is off.
     *
     * @throws IllegalArgumentException for a port out of range or contradictory wrapping
     */
    public OpenVpnWire wire() {
        if (!enabled()) {
            return null;
        }
        for (int p : ports) {
            if (p < 1 || p > 65_535) {
                throw new IllegalArgumentException(
                        "--openvpn-port " + p + " is not a port (1-65535; 0 alone turns OpenVPN off)");
            }
        }
        if (tlsAuthDigestBytes < -1) {
            throw new IllegalArgumentException(
                    "--openvpn-tls-auth " + tlsAuthDigestBytes + " is not an HMAC size (0-64)");
        }
        if (tlsCrypt && tlsAuthDigestBytes > 0) {
            throw new IllegalArgumentException("--openvpn-tls-auth and --openvpn-tls-crypt exclude each other");
        }
        if (tlsCrypt || tlsAuthDigestBytes >= 0) {
            return new OpenVpnWire(ports, Math.max(0, tlsAuthDigestBytes), tlsCrypt);
        }
        return new OpenVpnWire(ports, 0, false, true);
    }
}
