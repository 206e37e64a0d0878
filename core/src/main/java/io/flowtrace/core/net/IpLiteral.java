package io.flowtrace.core.net;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** Numeric IPv4/IPv6 text to network-order bytes, never touching DNS (InetAddress would for names). */
public final class IpLiteral {
    private IpLiteral() {}

    public static byte[] parse(String s) {
        if (s.indexOf(':') >= 0) {
            // Only a bracketed string is always taken as a literal by InetAddress: unbracketed, text
            // that is not a valid literal ("zz:1", "1::2::3") falls through to a DNS lookup, which
            // can block the reader for seconds per line (found by ConntrackTextFuzzTest).
            if (s.indexOf('[') >= 0 || s.indexOf(']') >= 0) {
                throw new IllegalArgumentException("bad IPv6 address '" + s + "'");
            }
            try {
                byte[] b = InetAddress.getByName("[" + s + "]").getAddress();
                if (b.length == 16) {
                    return b;
                }
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException("bad IPv6 address '" + s + "'", e);
            }
            throw new IllegalArgumentException("bad IPv6 address '" + s + "'");
        }
        String[] p = s.split("\\.", -1);
        if (p.length != 4) {
            throw new IllegalArgumentException("bad IPv4 address '" + s + "'");
        }
        byte[] b = new byte[4];
        for (int i = 0; i < 4; i++) {
            if (p[i].isEmpty() || p[i].length() > 3 || !p[i].chars().allMatch(Character::isDigit)) {
                throw new IllegalArgumentException("bad IPv4 address '" + s + "'");
            }
            int v = Integer.parseInt(p[i]);
            if (v > 255) {
                throw new IllegalArgumentException("bad IPv4 address '" + s + "'");
            }
            b[i] = (byte) v;
        }
        return b;
    }
}
