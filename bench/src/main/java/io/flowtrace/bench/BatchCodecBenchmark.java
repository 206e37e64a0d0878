package io.flowtrace.bench;

import io.flowtrace.avro.AvroLengthGuard;
import io.flowtrace.avro.PacketBatch;
import io.flowtrace.avro.PacketEvent;
import io.flowtrace.avro.Vantage;
import io.flowtrace.avro.mapping.PacketBatchHeader;
import io.flowtrace.avro.mapping.PacketBatches;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.pcap.DecodedPacket;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.message.BinaryMessageDecoder;
import org.apache.avro.specific.SpecificDatumReader;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the job's input costs to decode per packet, as the job decodes it: single PacketEvents
 * (BinaryMessageDecoder with a reused record, then {@code PacketEvents.fromAvro}) versus per-flow
 * PacketBatches of up to {@code batch} packets (Avro with a reused record and decoder, then
 * {@code PacketBatches.fromAvro} per packet), with and without {@link AvroLengthGuard}'s walk, and
 * the source's header-only read. The whole capture per operation; divide by {@link #packets} (printed
 * at set-up) for ns/packet. Also prints the encoded bytes per packet. Decides whether the per-packet
 * part needs a hand-written packed codec (docs/schemas.md, "PacketBatch").
 * Run: {@code java -jar bench/target/flowtrace-bench.jar BatchCodecBenchmark -prof gc}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xmx2g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class BatchCodecBenchmark {
    private static final Vantage VANTAGE = new Vantage("bench-host-01", "eth0");
    private static final AvroLengthGuard GUARD = AvroLengthGuard.of(PacketBatch.getClassSchema());

    @Param({"tcp/cubic-loss.sender.pcap.gz", "tcp/short-conns.sender.pcap.gz"})
    public String input;

    @Param({"512"})
    public int batch;

    private byte[][] events;
    private byte[][] batches;
    private int packets;
    private final BinaryMessageDecoder<PacketEvent> eventDecoder = PacketEvent.getDecoder();
    private final SpecificDatumReader<PacketBatch> batchReader = new SpecificDatumReader<>(PacketBatch.class);
    private final DecodedPacket out = new DecodedPacket();
    private PacketEvent event;
    private PacketBatch decoded;
    private BinaryDecoder binary;

    @Setup(Level.Trial)
    public void encode() throws IOException {
        DecodedPacket[] all = Packets.load(Packets.testdata(input));
        packets = all.length;
        events = new byte[all.length][];
        Map<String, List<DecodedPacket>> open = new LinkedHashMap<>();
        List<byte[]> b = new ArrayList<>();
        long eventBytes = 0;
        long batchBytes = 0;
        VantagePoint vantage = PacketEvents.vantagePoint(VANTAGE);
        for (int i = 0; i < all.length; i++) {
            events[i] = bytes(PacketEvents.toAvro(all[i], VANTAGE).toByteBuffer());
            eventBytes += events[i].length;
            List<DecodedPacket> flow =
                    open.computeIfAbsent(PacketEvents.flowKey(vantage, all[i]), k -> new ArrayList<>());
            flow.add(all[i]);
            if (flow.size() == batch) {
                b.add(bytes(PacketBatches.toAvro(VANTAGE, flow).toByteBuffer()));
                flow.clear();
            }
        }
        for (List<DecodedPacket> flow : open.values()) {
            if (!flow.isEmpty()) {
                b.add(bytes(PacketBatches.toAvro(VANTAGE, flow).toByteBuffer()));
            }
        }
        batches = b.toArray(new byte[0][]);
        for (byte[] v : batches) {
            batchBytes += v.length;
        }
        System.out.printf(
                Locale.ROOT,
                "%n%s: %d packets; PacketEvent %.1f bytes/packet; PacketBatch (<= %d) %.1f bytes/packet in %d records%n",
                input,
                packets,
                eventBytes / (double) packets,
                batch,
                batchBytes / (double) packets,
                batches.length);
    }

    @Benchmark
    public long decodeEvents() throws IOException {
        long sum = 0;
        for (byte[] v : events) {
            event = eventDecoder.decode(v, event);
            PacketEvents.fromAvro(event, out);
            sum += out.seq;
        }
        return sum;
    }

    @Benchmark
    public long decodeBatches() throws IOException {
        long sum = 0;
        for (byte[] v : batches) {
            binary = DecoderFactory.get().binaryDecoder(v, 10, v.length - 10, binary);
            decoded = batchReader.read(decoded, binary);
            for (int i = 0; i < decoded.getPackets().size(); i++) {
                PacketBatches.fromAvro(decoded, i, out);
                sum += out.seq;
            }
        }
        return sum;
    }

    @Benchmark
    public long guardAndDecodeBatches() throws IOException {
        for (byte[] v : batches) {
            GUARD.checkBinary(v, 10, v.length - 10);
        }
        return decodeBatches();
    }

    @Benchmark
    public long readBatchHeaders() throws Exception {
        long sum = 0;
        for (byte[] v : batches) {
            sum += PacketBatchHeader.read(v).baseTimeNs;
        }
        return sum;
    }

    public int packets() {
        return packets;
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.get(a);
        return a;
    }
}
