package io.flowtrace.cli.analyze;

import io.flowtrace.core.net.Endpoint;
import io.flowtrace.core.net.IpLiteral;

/**
 * {@code --host ADDR[/PREFIX]}: an IPv4 or IPv6 address or network, compared as bytes, so every
 * spelling of an IPv6 address ({@code fd00::1}, {@code fd00:0:0::0001}, upper case) matches the
 * same flows, as tcpdump's {@code host} and {@code net} do. Never resolves names.
 */
public record HostFilter(byte[] network, int prefixLength, String text) {

    /** @throws IllegalArgumentException with the reason, for the one-line usage error */
    static HostFilter parse(String text) {
        String address = text;
        int prefix = -1;
        int slash = text.indexOf('/');
        if (slash >= 0) {
            address = text.substring(0, slash);
            String p = text.substring(slash + 1);
            if (p.isEmpty() || p.length() > 3 || !p.chars().allMatch(Character::isDigit)) {
                throw new IllegalArgumentException("'" + text + "' has no valid prefix length after '/'");
            }
            prefix = Integer.parseInt(p);
        }
        if (address.startsWith("[") && address.endsWith("]")) {
            address = address.substring(1, address.length() - 1);
        }
        byte[] bytes;
        try {
            bytes = IpLiteral.parse(address);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "'" + text + "' is not an IPv4 or IPv6 address (or ADDRESS/PREFIX network)");
        }
        int bits = bytes.length * 8;
        if (prefix > bits) {
            throw new IllegalArgumentException("'" + text + "': prefix length " + prefix + " is longer than the " + bits
                    + " bits of an IPv" + (bytes.length == 4 ? "4" : "6") + " address");
        }
        return new HostFilter(bytes, prefix < 0 ? bits : prefix, text);
    }

    boolean matches(Endpoint e) {
        byte[] a = e.address();
        if (a.length != network.length) {
            return false;
        }
        int full = prefixLength / 8;
        for (int i = 0; i < full; i++) {
            if (a[i] != network[i]) {
                return false;
            }
        }
        int rest = prefixLength % 8;
        if (rest == 0) {
            return true;
        }
        int mask = (0xff << (8 - rest)) & 0xff;
        return (a[full] & mask) == (network[full] & mask);
    }
}
