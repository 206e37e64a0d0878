package io.flowtrace.bench.job;

import io.flowtrace.avro.PacketEvent;
import io.flowtrace.avro.Vantage;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.bench.Packets;
import io.flowtrace.core.analysis.CaptureAnalysis;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.core.tcp.AnalyzerConfig;
import io.flowtrace.core.tcp.TcpEventSinkFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The benchmark's input: a real capture's TCP packets as PacketEvents, replicated like
 * {@link io.flowtrace.bench.ScaleUp} (copy k has the second and third octets of both IPv4 addresses
 * set to k, so every copy is a distinct set of flows), with capture times shifted per copy or not.
 */
final class BenchPackets {
    private final List<PacketEvent> base;
    private final long spanNs;
    private final Path capture;

    BenchPackets(Path capture, Vantage vantage) throws IOException {
        this.capture = capture;
        base = new ArrayList<>();
        for (DecodedPacket p : Packets.load(capture)) {
            base.add(PacketEvents.toAvro(p, vantage));
        }
        long first = base.get(0).getCaptureTimeNs();
        long last = base.stream().mapToLong(PacketEvent::getCaptureTimeNs).max().orElseThrow();
        spanNs = last - first + 1_000_000_000L;
    }

    int size() {
        return base.size();
    }

    /**
     * Flows in one copy as {@code flowtrace analyze} counts them (core's offline pipeline; port
     * reuse makes two). Copies differ only in addresses and times, so n copies hold n times this.
     */
    long offlineFlows() throws IOException {
        long[] flows = new long[1];
        try (InputStream in = Files.newInputStream(capture)) {
            new CaptureAnalysis(AnalyzerConfig.DEFAULTS, iface -> new VantagePoint("bench", "if" + iface))
                    .run(
                            in,
                            (key, instance, flow) -> flows[0]++,
                            TcpEventSinkFactory.NONE,
                            error -> {
                                throw new IllegalStateException(capture + ": " + error);
                            },
                            records -> {});
        }
        return flows[0];
    }

    List<PacketEvent> base() {
        return base;
    }

    /** Packet i of the endless replication (copy i / size, timestamps shifted per copy when {@code shift}). */
    PacketEvent get(long i, boolean shift) {
        int copy = (int) (i / base.size());
        return copy(base.get((int) (i % base.size())), copy, shift);
    }

    PacketEvent copy(PacketEvent p, int copy, boolean shift) {
        if (copy >= 16 << 16) {
            throw new IllegalArgumentException("at most 1,048,576 copies (two address octets, then the first)");
        }
        PacketEvent c = PacketEvent.newBuilder(p)
                .setSrcAddr(shifted(p.getSrcAddr(), copy))
                .setDstAddr(shifted(p.getDstAddr(), copy))
                .build();
        if (shift) {
            c.setCaptureTimeNs(p.getCaptureTimeNs() + copy * spanNs);
        }
        return c;
    }

    private static ByteBuffer shifted(ByteBuffer address, int copy) {
        ByteBuffer d = address.duplicate();
        byte[] a = new byte[d.remaining()];
        d.get(a);
        if (a.length == 4) {
            a[0] = (byte) (a[0] + (copy >> 16)); // past 65,536 copies (the scale probe's 10^6 flows)
            a[1] = (byte) (copy >> 8);
            a[2] = (byte) copy;
        }
        return ByteBuffer.wrap(a);
    }
}
