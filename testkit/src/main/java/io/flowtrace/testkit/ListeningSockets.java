package io.flowtrace.testkit;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The TCP sockets a process listens on, as the kernel reports them: the {@code socket:[inode]}
 * links of {@code /proc/self/fd} (or {@code /proc/PID/fd}) matched against the LISTEN rows (state 0A) of
 * {@code /proc/net/tcp} and {@code /proc/net/tcp6} (proc(5)). Tests use it to check that the
 * services they start are bound to the loopback address only.
 */
public final class ListeningSockets {
    /** One listening socket: the address as the kernel prints it (hex) decoded to text, and the port. */
    public record Listener(String address, int port) {
        /** 127.0.0.1, also as the IPv4-mapped IPv6 address a dual-stack Java socket bound to it shows. */
        public boolean isLoopbackV4() {
            return address.equals("127.0.0.1") || address.equals("::ffff:127.0.0.1");
        }
    }

    private ListeningSockets() {}

    /** Every socket of any process listening on this TCP port (PostgreSQL is a process of its own). */
    public static List<Listener> onPort(int port) throws IOException {
        List<Listener> out = new ArrayList<>();
        for (Listener l : listening(null)) {
            if (l.port() == port) {
                out.add(l);
            }
        }
        return out;
    }

    public static List<Listener> ofThisProcess() throws IOException {
        return ofProcess("self");
    }

    /** The sockets process {@code pid} listens on (its /proc/PID/fd: this user's process, or root). */
    public static List<Listener> ofProcess(long pid) throws IOException {
        return ofProcess(Long.toString(pid));
    }

    private static List<Listener> ofProcess(String pid) throws IOException {
        Set<String> inodes = new HashSet<>();
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc", pid, "fd"))) {
            for (Path fd : fds) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) {
                        inodes.add(target.substring(8, target.length() - 1));
                    }
                } catch (IOException e) {
                    // the descriptor was closed while listing
                }
            }
        }
        return listening(inodes);
    }

    /** LISTEN rows, of the given socket inodes only unless {@code inodes} is null. */
    private static List<Listener> listening(Set<String> inodes) throws IOException {
        List<Listener> out = new ArrayList<>();
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            List<String> lines = Files.readAllLines(Path.of(table));
            for (String line : lines.subList(1, lines.size())) {
                String[] f = line.trim().split("\\s+");
                // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
                if (f[3].equals("0A") && (inodes == null || inodes.contains(f[9]))) {
                    String[] local = f[1].split(":");
                    out.add(new Listener(address(local[0]), Integer.parseInt(local[1], 16)));
                }
            }
        }
        return out;
    }

    /** /proc prints an address as 32-bit words in host (little-endian) byte order. */
    static String address(String hex) {
        byte[] b = new byte[hex.length() / 2];
        for (int word = 0; word < b.length / 4; word++) {
            for (int i = 0; i < 4; i++) {
                b[word * 4 + i] =
                        (byte) Integer.parseInt(hex.substring(word * 8 + (3 - i) * 2, word * 8 + (3 - i) * 2 + 2), 16);
            }
        }
        if (b.length == 4) {
            return (b[0] & 0xFF) + "." + (b[1] & 0xFF) + "." + (b[2] & 0xFF) + "." + (b[3] & 0xFF);
        }
        boolean mapped = true;
        for (int i = 0; i < 10; i++) {
            mapped &= b[i] == 0;
        }
        mapped &= b[10] == (byte) 0xFF && b[11] == (byte) 0xFF;
        if (mapped) {
            return "::ffff:" + (b[12] & 0xFF) + "." + (b[13] & 0xFF) + "." + (b[14] & 0xFF) + "." + (b[15] & 0xFF);
        }
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < 16; i += 2) {
            s.append(i == 0 ? "" : ":").append(Integer.toHexString(((b[i] & 0xFF) << 8) | (b[i + 1] & 0xFF)));
        }
        return s.toString(); // uncompressed, e.g. 0:0:0:0:0:0:0:0 for the wildcard
    }
}
