package io.flowtrace.core.net;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;

/** One side of a connection: an IPv4 or IPv6 address and a port. */
public record Endpoint(byte[] address, int port) implements Comparable<Endpoint> {

    public Endpoint {
        if (address.length != 4 && address.length != 16) {
            throw new IllegalArgumentException("address must be 4 or 16 bytes, got " + address.length);
        }
    }

    /**
     * The endpoint of its {@link #toString()} text, "10.0.0.1:443" or "[fd00::1]:443" (numeric
     * addresses only: {@link IpLiteral} never asks DNS).
     *
     * @throws IllegalArgumentException when the text is not such an endpoint
     */
    public static Endpoint parse(String text) {
        int colon = text.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("endpoint '" + text + "' has no :port");
        }
        String host = text.substring(0, colon);
        boolean bracketed = host.length() > 2 && host.startsWith("[") && host.endsWith("]");
        if (!bracketed && host.contains(":")) {
            throw new IllegalArgumentException("endpoint '" + text + "': an IPv6 address must be bracketed");
        }
        String digits = text.substring(colon + 1);
        int port = 0;
        for (int i = 0; i < digits.length(); i++) {
            char c = digits.charAt(i);
            if (c < '0' || c > '9' || i >= 5) {
                throw new IllegalArgumentException("endpoint '" + text + "' has no decimal port");
            }
            port = port * 10 + (c - '0');
        }
        if (digits.isEmpty() || port > 0xffff) {
            throw new IllegalArgumentException("endpoint '" + text + "': port missing or above 65535");
        }
        if (!bracketed) {
            return new Endpoint(IpLiteral.parse(host), port);
        }
        String inner = host.substring(1, host.length() - 1);
        if (inner.contains(":")) {
            return new Endpoint(IpLiteral.parse(inner), port);
        }
        // InetAddress writes an IPv4-mapped IPv6 address (::ffff:a.b.c.d, RFC 4291 §2.5.5.2) as a.b.c.d
        byte[] mapped = new byte[16];
        mapped[10] = (byte) 0xff;
        mapped[11] = (byte) 0xff;
        System.arraycopy(IpLiteral.parse(inner), 0, mapped, 12, 4);
        return new Endpoint(mapped, port);
    }

    /** "10.0.0.1:443" or "[fd00::1]:443", the form the JSON contract uses. */
    @Override
    public String toString() {
        String host = hostString();
        return address.length == 16 ? "[" + host + "]:" + port : host + ":" + port;
    }

    public String hostString() {
        try {
            String s = InetAddress.getByAddress(address).getHostAddress();
            return address.length == 16 ? compressIpv6(s) : s;
        } catch (UnknownHostException e) {
            throw new IllegalStateException("impossible: address length checked", e);
        }
    }

    /** RFC 5952 text form (longest run of zero groups collapsed), which InetAddress does not produce. */
    private static String compressIpv6(String full) {
        String[] groups = full.split(":");
        int bestStart = -1;
        int bestLen = 0;
        for (int i = 0; i < groups.length; ) {
            if (groups[i].equals("0")) {
                int j = i;
                while (j < groups.length && groups[j].equals("0")) {
                    j++;
                }
                if (j - i > bestLen && j - i >= 2) {
                    bestStart = i;
                    bestLen = j - i;
                }
                i = j;
            } else {
                i++;
            }
        }
        if (bestStart < 0) {
            return String.join(":", groups);
        }
        String head = String.join(":", Arrays.copyOfRange(groups, 0, bestStart));
        String tail = String.join(":", Arrays.copyOfRange(groups, bestStart + bestLen, groups.length));
        return head + "::" + tail;
    }

    @Override
    public int compareTo(Endpoint o) {
        int c = Arrays.compareUnsigned(address, o.address);
        return c != 0 ? c : Integer.compare(port, o.port);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Endpoint e && port == e.port && Arrays.equals(address, e.address);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(address) + port;
    }
}
