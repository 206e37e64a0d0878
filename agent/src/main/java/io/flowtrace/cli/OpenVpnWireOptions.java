package io.flowtrace.cli;

import io.flowtrace.core.openvpn.OpenVpnWire;
import picocli.CommandLine.Option;

/**
 * Which UDP ports carry OpenVPN and how its control channel is wrapped (a picocli mixin of
 * {@code analyze} and {@code agent packets}; docs/decoding.md, "OpenVPN header view").
 */
final class OpenVpnWireOptions {
    @Option(
            names = "--openvpn-port",
            paramLabel = "PORT",
            split = ",",
            defaultValue = "1194",
            description =
                    "UDP port(s) whose packets are decoded as OpenVPN (default: ${DEFAULT-VALUE}); 0 turns it off")
    int[] ports;

    @Option(
            names = "--openvpn-tls-auth",
            paramLabel = "BYTES",
            defaultValue = "0",
            description = "tls-auth HMAC size to skip in control packets: 20 (SHA1), 32 (SHA256); 0 = no tls-auth")
    int tlsAuthDigestBytes;

    @Option(names = "--openvpn-tls-crypt", description = "control packets are tls-crypt wrapped (counted as opaque)")
    boolean tlsCrypt;

    /** Off with no port or the single port 0. */
    boolean enabled() {
        return ports.length > 0 && !(ports.length == 1 && ports[0] == 0);
    }

    /**
     * The wire settings, or null when OpenVPN is off.
     *
     * @throws IllegalArgumentException for a port out of range or contradictory wrapping
     */
    OpenVpnWire wire() {
        if (!enabled()) {
            return null;
        }
        for (int p : ports) {
            if (p < 1 || p > 65_535) {
                throw new IllegalArgumentException(
                        "--openvpn-port " + p + " is not a port (1-65535; 0 alone turns OpenVPN off)");
            }
        }
        return new OpenVpnWire(ports, tlsAuthDigestBytes, tlsCrypt);
    }
}
