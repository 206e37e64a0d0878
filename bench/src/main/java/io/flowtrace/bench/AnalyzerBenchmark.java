package io.flowtrace.bench;

import io.flowtrace.core.flow.FlowTracker;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.core.tcp.AnalyzerConfig;
import java.io.IOException;
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
import org.openjdk.jmh.infra.Blackhole;

/**
 * Per-packet cost of the analysis core (flow table + TCP analyser) on decoded packets held in
 * memory: real captures (clean bulk, lossy bulk, many short connections) and the synthetic long
 * lossy flow at 10^4, 10^5 and 10^6 packets (docs/design.md, "tcptrace's quadratic IsRTO": cost must stay flat as the flow grows).
 * Score = ns per packet. Run: {@code java -jar bench/target/flowtrace-bench.jar AnalyzerBenchmark -prof gc}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xmx4g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class AnalyzerBenchmark {
    private static final VantagePoint BENCH = new VantagePoint("bench", "if0");

    @Param({
        "tcp/cubic-deepqueue.sender.pcap.gz",
        "tcp/cubic-loss.sender.pcap.gz",
        "tcp/short-conns.sender.pcap.gz",
        "synthetic-lossy-10000",
        "synthetic-lossy-100000",
        "synthetic-lossy-1000000"
    })
    public String input;

    private DecodedPacket[] packets;

    @Setup(Level.Trial)
    public void load() throws IOException {
        if (input.startsWith("synthetic-lossy-")) {
            packets = SyntheticLossyFlow.generate(
                    Integer.parseInt(input.substring("synthetic-lossy-".length())), 0.02, 42);
        } else {
            packets = Packets.load(Packets.testdata(input));
        }
    }

    /** Whole input through a fresh tracker; divide by the packet count for ns/packet (see {@link #perPacket}). */
    @Benchmark
    public long analyse(Blackhole bh) {
        long[] flows = {0};
        FlowTracker tracker = new FlowTracker(AnalyzerConfig.DEFAULTS, i -> BENCH, (k, inst, f) -> {
            flows[0]++;
            bh.consume(f);
        });
        for (DecodedPacket p : packets) {
            tracker.onPacket(p);
        }
        tracker.flush();
        return flows[0];
    }

    public int packetCount() {
        return packets.length;
    }
}
