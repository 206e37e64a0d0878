package io.flowtrace.bench;

import io.flowtrace.core.pcap.CaptureFormatException;
import io.flowtrace.core.pcap.CaptureReader;
import io.flowtrace.core.pcap.CaptureRecord;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.core.pcap.PacketDecoder;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
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
 * Per-frame cost of {@link PacketDecoder} (link → IP → TCP, options) on captured frames held in
 * memory: the decoder alone, without reading. Score = ns per frame (one frame per invocation,
 * cycling through the capture). Run on two builds to compare decoders:
 * {@code java -cp bench/target/flowtrace-bench.jar org.openjdk.jmh.Main DecoderBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xmx2g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class DecoderBenchmark {
    @Param({"tcp/cubic-loss.sender.pcap.gz", "tcp/short-conns.sender.pcap.gz"})
    public String input;

    private byte[][] frames;
    private int[] linkTypes;
    private int[] wireLengths;
    private final PacketDecoder decoder = new PacketDecoder();
    private final DecodedPacket packet = new DecodedPacket();

    @Setup(Level.Trial)
    public void load() throws IOException {
        List<byte[]> f = new ArrayList<>();
        List<int[]> meta = new ArrayList<>();
        try (InputStream in = Files.newInputStream(Packets.testdata(input));
                CaptureReader r = CaptureReader.open(in)) {
            CaptureRecord rec = new CaptureRecord();
            while (r.next(rec)) {
                f.add(Arrays.copyOfRange(rec.data, rec.dataOffset, rec.dataOffset + rec.capturedLength));
                meta.add(new int[] {rec.linkType, rec.wireLength});
            }
        } catch (CaptureFormatException e) {
            throw new IOException(input + ": " + e.getMessage(), e);
        }
        frames = f.toArray(new byte[0][]);
        linkTypes = meta.stream().mapToInt(m -> m[0]).toArray();
        wireLengths = meta.stream().mapToInt(m -> m[1]).toArray();
    }

    private int next;

    @Benchmark
    public int decode() {
        int i = next;
        next = i + 1 == frames.length ? 0 : i + 1;
        byte[] b = frames[i];
        decoder.decode(b, 0, b.length, wireLengths[i], linkTypes[i], i, 0, packet);
        return packet.srcPort + packet.payloadLength;
    }
}
