package io.flowtrace.core.testing;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code testdata/tcp/any-bridge.pcap.gz} (scripts/capture-any-bridge.sh): tcpdump on Linux's {@code any}
 * device of a node whose two pods hang off a bridge, as the packets agent runs it ({@code -y LINUX_SLL2}),
 * so every packet is in the capture once per interface it crossed. Two connections from pod1, each a
 * 20-byte request answered by 20,000 bytes: to pod2 (bridged: pod1's and pod2's veths) and to the
 * node's bridge address (pod1's veth and the bridge). The truth is tshark's count per interface
 * ({@code sll.ifindex}) and direction, {@code any-bridge.per-interface.tsv}, never flowtrace's output.
 */
public final class AnyBridgeCapture {
    /** pod1, the client of both connections. */
    public static final String CLIENT = "10.78.0.11";
    /** The script's client sends this many bytes per connection ({@code "twenty bytes, please"}). */
    public static final long REQUEST_BYTES = 20;
    /** The script's servers answer each with this many ({@code b"x" * 20000}). */
    public static final long RESPONSE_BYTES = 20_000;

    private AnyBridgeCapture() {}

    public static Path file() {
        return TestData.file("tcp/any-bridge.pcap.gz");
    }

    /** What one interface saw of one direction of one connection (a row of tshark's count). */
    public record Seen(int ifindex, String src, int srcPort, String dst, int dstPort, long packets, long payloadBytes) {
        public boolean fromClient() {
            return src.equals(CLIENT);
        }

        /** "client:port server:port", whichever direction this row is. */
        public String connection() {
            return fromClient()
                    ? src + ":" + srcPort + " " + dst + ":" + dstPort
                    : dst + ":" + dstPort + " " + src + ":" + srcPort;
        }
    }

    /** tshark's rows: per interface index, source and destination. */
    public static List<Seen> truth() throws IOException {
        List<Seen> rows = new ArrayList<>();
        for (Map<String, String> r : Tsv.read(TestData.file("tcp/any-bridge.per-interface.tsv"))) {
            rows.add(new Seen(
                    Integer.parseInt(r.get("ifindex")),
                    r.get("src"),
                    Integer.parseInt(r.get("sport")),
                    r.get("dst"),
                    Integer.parseInt(r.get("dport")),
                    Long.parseLong(r.get("packets")),
                    Long.parseLong(r.get("payload_bytes"))));
        }
        return rows;
    }
}
