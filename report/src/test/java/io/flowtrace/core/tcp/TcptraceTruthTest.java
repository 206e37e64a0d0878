package io.flowtrace.core.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.core.testing.CaptureRun;
import io.flowtrace.core.testing.TestData;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code unique_bytes} of both directions against tcptrace's "unique bytes sent" ({@code tcptrace -l
 * -r -n}, the {@code CASE.VANTAGE.tcptrace.txt} files testdata/tcp/README.md lists) on every committed
 * capture that has one, both vantages: equal, byte for byte. tcptrace counts each byte of sequence
 * space once whether it was seen first as an original or as a resend, which is the rule of docs/metrics.md.
 * A capture whose tcptrace file names no connection, or a connection flowtrace did not report, fails.
 */
class TcptraceTruthTest {
    /** tcptrace's two columns on one line: the first host's direction (a2b), then the second's. */
    private static final Pattern UNIQUE =
            Pattern.compile("unique bytes sent:\\s+(\\d+)\\s+unique bytes sent:\\s+(\\d+)");

    static Stream<String> captures() throws IOException {
        try (Stream<Path> files = Files.list(TestData.file("tcp"))) {
            List<String> names = files.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".tcptrace.txt") || n.endsWith(".tcptrace.txt.gz"))
                    .map(n -> n.substring(0, n.indexOf(".tcptrace.txt")))
                    .sorted()
                    .toList();
            assertThat(names).as("tcptrace files in testdata/tcp").isNotEmpty();
            return names.stream();
        }
    }

    @ParameterizedTest
    @MethodSource("captures")
    void uniqueBytesEqualTcptracesInBothDirections(String capture) throws Exception {
        // tcptrace: per client endpoint, its connections' (client → server, server → client) unique bytes
        Map<String, List<List<Long>>> tcptrace = new TreeMap<>();
        String client = null;
        int hosts = 0;
        for (String line : tcptraceLines(capture)) {
            String t = line.strip();
            if (t.startsWith("TCP connection ")) {
                hosts = 0;
            } else if (t.startsWith("host ") && hosts++ == 0) {
                // the first host line is the connection's client (a), as `-n` prints it: ADDRESS:PORT
                client = endpoint(t.substring(t.indexOf(':') + 1).strip());
            } else {
                Matcher m = UNIQUE.matcher(t);
                if (m.find()) {
                    tcptrace.computeIfAbsent(client, k -> new ArrayList<>())
                            .add(List.of(Long.parseLong(m.group(1)), Long.parseLong(m.group(2))));
                }
            }
        }
        assertThat(tcptrace).as("connections in %s's tcptrace file", capture).isNotEmpty();

        CaptureRun run = CaptureRun.of(TestData.file("tcp/" + capture + ".pcap.gz"));
        Map<String, List<List<Long>>> ours = new TreeMap<>();
        run.flows.forEach((name, f) -> {
            String base = name.contains("#") ? name.substring(0, name.indexOf('#')) : name;
            ours.computeIfAbsent(endpoint(base), k -> new ArrayList<>())
                    .add(List.of((Long) f.get("c2s.unique_bytes"), (Long) f.get("s2c.unique_bytes")));
        });
        // a client endpoint reused by several connections: the same multiset of pairs
        ours.values().forEach(l -> l.sort(TcptraceTruthTest::compare));
        tcptrace.values().forEach(l -> l.sort(TcptraceTruthTest::compare));
        assertThat(ours)
                .as("%s: unique bytes (c2s, s2c) per client endpoint", capture)
                .isEqualTo(tcptrace);
    }

    private static int compare(List<Long> a, List<Long> b) {
        int c = Long.compare(a.get(0), b.get(0));
        return c != 0 ? c : Long.compare(a.get(1), b.get(1));
    }

    /**
     * One spelling of ADDRESS:PORT for both tools: tcptrace writes IPv6 unbracketed with zero-padded
     * groups ({@code fd77:0001::0002:34890}), flowtrace bracketed and compressed ({@code [fd77:1::2]:34890}).
     */
    private static String endpoint(String text) {
        int colon = text.lastIndexOf(':');
        String address = text.substring(0, colon).replace("[", "").replace("]", "");
        try {
            return InetAddress.getByName(address).getHostAddress() + " " + text.substring(colon + 1);
        } catch (IOException e) {
            throw new AssertionError("not an address: " + text, e);
        }
    }

    private static List<String> tcptraceLines(String capture) throws IOException {
        Path txt = TestData.file("tcp/" + capture + ".tcptrace.txt");
        if (Files.exists(txt)) {
            return Files.readAllLines(txt);
        }
        try (InputStream in =
                new GZIPInputStream(Files.newInputStream(TestData.file("tcp/" + capture + ".tcptrace.txt.gz")))) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        }
    }
}
