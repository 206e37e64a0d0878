package io.flowtrace.demo;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The bundled inputs: real captures already committed in testdata/ (nothing is copied; see
 * testdata/tcp/README.md for how each was made and docs/demo.md for why these).
 */
final class Bundled {
    /** The sender-side capture of each case: the side where flight, rounds and slow start are measurable. */
    static final List<String[]> TCP_CASES = List.of(
            new String[] {"cubic-loss", "lossy bulk: CUBIC through a 20 Mbit/s bottleneck with 1 % random loss"},
            new String[] {"short-conns", "240 short connections, 3 % loss both ways and 25 % SYN/SYN-ACK loss"},
            new String[] {"rwnd-limited", "slow start into a 16 KB receive window (application reads 1 MB/s)"});
    /** OpenVPN: the client-side capture of 20 real setups (testdata/openvpn/README.md). */
    static final String[] OPENVPN_CASE = {
        "push-100k", "20 OpenVPN 2.6 setups pushing ~100 KB of routes under 1 % loss, client side"
    };
    /** Raw ctnetlink recordings ([u32 LE length][message], testdata/conntrack). */
    static final List<String[]> CONNTRACK_CASES = List.of(
            new String[] {"v4_plain", "conntrack events of a few IPv4 connections"},
            new String[] {"burst", "a burst of 400 new connections in 0.43 s (the ENOBUFS experiment)"});

    private Bundled() {}

    static List<Capture> tcpCaptures(Path home) {
        List<Capture> out = new ArrayList<>();
        for (String[] c : TCP_CASES) {
            out.add(new Capture(require(home.resolve("testdata/tcp/" + c[0] + ".sender.pcap.gz")), c[0], c[1]));
        }
        return out;
    }

    /** The OpenVPN capture, replayed as an agent publishes UDP on port 1194 (OpenVpnBatches). */
    static Capture openVpnCapture(Path home) {
        return new Capture(
                require(home.resolve("testdata/openvpn/" + OPENVPN_CASE[0] + ".client.pcap.gz")),
                "ovpn-" + OPENVPN_CASE[0],
                OPENVPN_CASE[1]);
    }

    static List<Capture> conntrackRecordings(Path home) {
        List<Capture> out = new ArrayList<>();
        for (String[] c : CONNTRACK_CASES) {
            out.add(new Capture(require(home.resolve("testdata/conntrack/" + c[0] + ".nl.bin")), "ct-" + c[0], c[1]));
        }
        return out;
    }

    /**
     * The repository root: {@code -Dflowtrace.home} (the launcher sets it), else the first directory
     * upwards from the working directory that has testdata/tcp.
     */
    static Path home() {
        String prop = System.getProperty("flowtrace.home");
        if (prop != null && !prop.isBlank()) {
            return Path.of(prop).toAbsolutePath().normalize();
        }
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isDirectory(p.resolve("testdata/tcp"))) {
                return p;
            }
        }
        throw new IllegalStateException("cannot find the flowtrace repository (testdata/): run ./flowtrace demo from "
                + "the clone, or set -Dflowtrace.home");
    }

    private static Path require(Path file) {
        if (!Files.isRegularFile(file)) {
            throw new IllegalStateException("bundled capture missing: " + file);
        }
        return file;
    }
}
