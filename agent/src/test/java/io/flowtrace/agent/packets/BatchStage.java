package io.flowtrace.agent.packets;

import io.flowtrace.agent.batch.BatchKey;
import io.flowtrace.agent.batch.BatchLimits;
import io.flowtrace.agent.batch.FlowBatcher;
import io.flowtrace.agent.batch.FlushReason;
import io.flowtrace.avro.BatchedPacket;
import io.flowtrace.avro.PacketBatch;
import io.flowtrace.avro.Vantage;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.pcap.CaptureReader;
import io.flowtrace.core.pcap.CaptureRecord;
import io.flowtrace.core.pcap.DecodeStatus;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.core.pcap.PacketDecoder;
import java.io.BufferedInputStream;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;

/**
 * Benchmark stage (AgentThroughput, docs/agent.md): the agent's batching path without Kafka, read
 * + decode + flow key + per-flow batch encoding to single-object values, and what a linger gives:
 * packets per batch, bytes per packet, and the latency batching adds per packet.
 */
public final class BatchStage {
    private BatchStage() {}

    /** Frames per second through read, decode, key and batch encoding (values made, not sent). */
    public static double rate(Path capture, BatchLimits limits) throws Exception {
        long[] sink = new long[1];
        long start = System.nanoTime();
        long frames = run(capture, limits, (key, w, packets, reason) -> sink[0] += w.finish().length);
        double rate = frames / ((System.nanoTime() - start) / 1e9);
        if (sink[0] == 42) {
            System.out.print("");
        }
        return rate;
    }

    /**
     * Prints one line for {@code limits}: batches, packets per batch, value bytes per packet, the
     * flush reasons, and the added latency per packet. The latency is what a live agent would add:
     * a batch that left by linger (or at the end of the input, where a live agent's timer would have
     * sent it) leaves its linger after its first packet; any other leaves with the packet that filled
     * or ended it. Latency = that time − the packet's capture time.
     */
    public static void report(Path capture, BatchLimits limits) throws Exception {
        long[][] latency = {new long[1 << 20]};
        int[] n = {0};
        long[] bytes = {0};
        long[] batches = {0};
        long[] now = {0};
        Map<FlushReason, Long> reasons = new EnumMap<>(FlushReason.class);
        long start = System.nanoTime();
        run(capture, limits, now, (key, w, packets, reason) -> {
            byte[] value = w.finish();
            bytes[0] += value.length;
            batches[0]++;
            reasons.merge(reason, 1L, Long::sum);
            PacketBatch b = PacketBatch.getDecoder().decode(value);
            boolean lingered = reason == FlushReason.LINGER || reason == FlushReason.SHUTDOWN;
            long leaves = lingered ? b.getBaseTimeNs() + limits.lingerNanos() : now[0];
            for (BatchedPacket p : b.getPackets()) {
                if (n[0] == latency[0].length) {
                    latency[0] = Arrays.copyOf(latency[0], n[0] * 2);
                }
                latency[0][n[0]++] = Math.max(0, leaves - (b.getBaseTimeNs() + p.getTimeOffsetNs()));
            }
        });
        double seconds = (System.nanoTime() - start) / 1e9;
        long[] l = Arrays.copyOf(latency[0], n[0]);
        Arrays.sort(l);
        StringBuilder why = new StringBuilder();
        reasons.forEach((r, c) ->
                why.append(' ').append(r.label()).append(' ').append(c).append(';'));
        System.out.printf(
                "linger %3d ms: %,d batches, %.1f packets/batch, %.1f B/packet; added latency p50 %.2f ms, "
                        + "p99 %.2f ms, max %.2f ms; flushed by:%s (%.2f s with decoding the batches back)%n",
                limits.lingerNanos() / 1_000_000,
                batches[0],
                (double) n[0] / batches[0],
                (double) bytes[0] / n[0],
                l[n[0] / 2] / 1e6,
                l[(int) (n[0] * 0.99)] / 1e6,
                l[n[0] - 1] / 1e6,
                why,
                seconds);
    }

    private static long run(Path capture, BatchLimits limits, FlowBatcher.Sink<PacketBatchWriter> sink)
            throws Exception {
        return run(capture, limits, new long[1], sink);
    }

    private static long run(Path capture, BatchLimits limits, long[] now, FlowBatcher.Sink<PacketBatchWriter> sink)
            throws Exception {
        Vantage v =
                Vantage.newBuilder().setAgentId("bench").setInterfaceName("if0").build();
        VantagePoint vantage = PacketEvents.vantagePoint(v);
        FlowBatcher<PacketBatchWriter> batcher = new FlowBatcher<>(limits, () -> new PacketBatchWriter(id -> v), sink);
        FlowKeyCache keys = new FlowKeyCache();
        long frames = 0;
        try (InputStream in = new BufferedInputStream(Files.newInputStream(capture), 1 << 16)) {
            CaptureReader r = CaptureReader.open(in);
            CaptureRecord rec = new CaptureRecord();
            DecodedPacket p = new DecodedPacket();
            PacketDecoder d = new PacketDecoder();
            while (r.next(rec)) {
                frames++;
                if (d.decode(rec, p) != DecodeStatus.TCP) {
                    continue;
                }
                BatchKey key = keys.flow(0, vantage, p);
                now[0] = rec.timestampNanos;
                batcher.add(key, p, rec.timestampNanos);
            }
        }
        batcher.flushAll(FlushReason.SHUTDOWN);
        return frames;
    }
}
