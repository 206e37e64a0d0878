package io.flowtrace.jobs;

import io.flowtrace.avro.PacketBatch;
import io.flowtrace.avro.PacketEvent;
import io.flowtrace.avro.mapping.PacketBatches;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.jobs.flow.FlowBatch;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Test inputs for the packet path: PacketEvents as the source would hand them on ({@link FlowBatch}
 * of one event or of one PacketBatch), and a capture cut into per-flow batches the way an agent
 * does (consecutive packets of one flow, at most {@code size} a batch, flushed when a packet of
 * another flow comes {@code linger} packets later).
 */
public final class FlowBatches {
    private FlowBatches() {}

    /** One PacketEvent as the source emits it. */
    public static FlowBatch ofEvent(PacketEvent e) {
        byte[] value = encode(e::toByteBuffer);
        return new FlowBatch(
                key(e),
                Math.floorDiv(e.getCaptureTimeNs(), 1_000_000L),
                1,
                "t",
                0,
                0,
                0,
                key(e).getBytes(StandardCharsets.UTF_8),
                value);
    }

    /** Events of one flow as one PacketBatch, as the source emits it. */
    public static FlowBatch ofBatch(List<PacketEvent> events) {
        PacketBatch batch = PacketBatches.fromEvents(events);
        String key = PacketBatches.flowKey(batch);
        return new FlowBatch(
                key,
                Math.floorDiv(batch.getBaseTimeNs(), 1_000_000L),
                events.size(),
                "t",
                0,
                0,
                0,
                key.getBytes(StandardCharsets.UTF_8),
                encode(batch::toByteBuffer));
    }

    /**
     * Cuts a capture's packets (in capture order) into per-flow batches as an agent does: a flow's
     * open batch is flushed when it holds {@code size} packets, when a packet of the capture comes
     * {@code lingerNs} or more of capture time after the batch's first, when the flow sends FIN or
     * RST, and at the end. Returns the batches in flush order.
     */
    public static List<List<PacketEvent>> cut(List<PacketEvent> packets, int size, long lingerNs) {
        Map<String, List<PacketEvent>> open = new LinkedHashMap<>();
        List<List<PacketEvent>> out = new ArrayList<>();
        for (PacketEvent p : packets) {
            long now = p.getCaptureTimeNs();
            for (var it = open.entrySet().iterator(); it.hasNext(); ) {
                var e = it.next();
                if (now - e.getValue().get(0).getCaptureTimeNs() >= lingerNs) {
                    out.add(e.getValue());
                    it.remove();
                }
            }
            String key = key(p);
            List<PacketEvent> batch = open.computeIfAbsent(key, k -> new ArrayList<>());
            batch.add(p);
            if (batch.size() >= size || (p.getTcpFlags() & (DecodedPacket.FIN | DecodedPacket.RST)) != 0) {
                out.add(open.remove(key));
            }
        }
        out.addAll(open.values());
        return out;
    }

    public static String key(PacketEvent e) {
        DecodedPacket p = new DecodedPacket();
        PacketEvents.fromAvro(e, p);
        return PacketEvents.flowKey(PacketEvents.vantagePoint(e.getVantage()), p);
    }

    static byte[] bytes(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.get(a);
        return a;
    }

    /** The single-object bytes of a record (toByteBuffer declares IOException). */
    public static byte[] encode(IoSupplier<ByteBuffer> encoder) {
        try {
            return bytes(encoder.get());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code record::toByteBuffer}. */
    @FunctionalInterface
    public interface IoSupplier<T> {
        T get() throws IOException;
    }
}
