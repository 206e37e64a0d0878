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
