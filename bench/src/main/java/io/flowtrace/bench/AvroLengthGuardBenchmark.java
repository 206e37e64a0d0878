package io.flowtrace.bench;

import io.flowtrace.avro.AvroLengthGuard;
import io.flowtrace.avro.PacketEvent;
import io.flowtrace.avro.SackBlock;
import io.flowtrace.avro.Vantage;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.avro.message.BinaryMessageDecoder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the length-bomb guard adds to decoding one packet record: Avro's single-object decode of a
 * PacketEvent with two SACK blocks and every option, with and without {@link AvroLengthGuard} first.
 * Score = ns per record. Run on bench's full classpath (the shaded JMH jar lacks Avro): docs/BENCHMARKS.md, "Avro length guard".
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class AvroLengthGuardBenchmark {
    private static final AvroLengthGuard GUARD = AvroLengthGuard.of(PacketEvent.getClassSchema());
    private final BinaryMessageDecoder<PacketEvent> decoder = PacketEvent.getDecoder();
    private byte[] record;

    @Setup
    public void encode() throws Exception {
        PacketEvent p = PacketEvent.newBuilder()
                .setCaptureTimeNs(1_732_924_800_123_456_789L)
                .setVantage(new Vantage("edge-node-17.example", "eth0"))
                .setLinkType(1)
                .setIpVersion(4)
                .setSrcAddr(ByteBuffer.wrap(new byte[] {10, 0, 0, 1}))
                .setDstAddr(ByteBuffer.wrap(new byte[] {10, 0, 0, 2}))
                .setSrcPort(51234)
                .setDstPort(443)
                .setIpId(4711)
                .setTtl(64)
                .setIpTotalLength(1500)
                .setTcpFlags(0x10)
                .setSeq(4_000_000_000L)
                .setAck(123_456_789L)
                .setWindow(501)
                .setPayloadLength(1448)
                .setCapturedLength(128)
                .setWireLength(1514)
                .setSackBlocks(
                        List.of(new SackBlock(123_460_000L, 123_470_000L), new SackBlock(123_480_000L, 123_490_000L)))
                .setTsVal(1_000_000L)
                .setTsEcr(999_000L)
                .build();
        record = p.toByteBuffer().array();
    }

    @Benchmark
    public PacketEvent decodeOnly() throws Exception {
        return decoder.decode(record);
    }

    @Benchmark
    public PacketEvent guardThenDecode() throws Exception {
        GUARD.checkSingleObject(record);
        return decoder.decode(record);
    }

    @Benchmark
    public byte[] guardOnly() throws Exception {
        GUARD.checkSingleObject(record);
        return record;
    }
}
