package io.flowtrace.bench;

import java.util.Collection;
import java.util.Locale;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Runs {@link AnalyzerBenchmark} and prints ns per packet and packets per second per input (JMH
 * reports time per whole input; this divides by its packet count). Accepts JMH's own options.
 */
public final class PerPacketReport {
    private PerPacketReport() {}

    public static void main(String[] args) throws Exception {
        Options opts = new OptionsBuilder()
                .parent(new CommandLineOptions(args))
                .include(AnalyzerBenchmark.class.getSimpleName())
                .build();
        Collection<RunResult> results = new Runner(opts).run();
        System.out.printf(
                Locale.ROOT, "%n%-40s %10s %14s %12s %14s%n", "input", "packets", "ns/packet", "±error", "packets/s");
        for (RunResult r : results) {
            String input = r.getParams().getParam("input");
            AnalyzerBenchmark b = new AnalyzerBenchmark();
            b.input = input;
            b.load();
            int n = b.packetCount();
            double nsPerInput = r.getPrimaryResult().getScore();
            double err = r.getPrimaryResult().getScoreError();
            System.out.printf(
                    Locale.ROOT,
                    "%-40s %10d %14.1f %12.1f %,14.0f%n",
                    input,
                    n,
                    nsPerInput / n,
                    err / n,
                    1e9 * n / nsPerInput);
        }
    }
}
