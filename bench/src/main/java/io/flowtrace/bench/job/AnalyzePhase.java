package io.flowtrace.bench.job;

import static io.flowtrace.bench.job.JobBenchContext.report;

import io.flowtrace.bench.Packets;
import io.flowtrace.bench.ScaleUp;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * (0) {@code flowtrace analyze --json} as a whole process (JVM start included) on the same
 * capture replicated to the same number of copies ({@link ScaleUp}: its copies shift other address
 * octets, so the flows differ in address only); packets/s counts the TCP packets, as the job's
 * rates do. One run first to warm the launcher's class-data archive, not reported.
 */
final class AnalyzePhase {
    private final JobBenchContext bench;

    AnalyzePhase(JobBenchContext bench) {
        this.bench = bench;
    }

    void run(long n, int runs) throws Exception {
        long copies = n / bench.packets.size();
        Path pcap = bench.work.resolve("analyze-input.pcap");
        ScaleUp.main(
                new String[] {Packets.testdata(bench.arg("capture")).toString(), pcap.toString(), Long.toString(copies)
                });
        try {
            String load = JobBenchContext.load();
            analyzeSeconds(pcap);
            List<Double> rates = new ArrayList<>();
            for (int r = 0; r < runs; r++) {
                double seconds = analyzeSeconds(pcap);
                report(
                        "  analyze run: %.2f s, %.0f packets/s, %.0f flows/s",
                        seconds, n / seconds, n / seconds * bench.flowsPerPacket());
                rates.add(n / seconds);
            }
            bench.remember("analyze", JobBenchContext.median(rates));
            report(
                    "(0) flowtrace analyze --json, whole process, %,d copies = %,d TCP packets, %,d flows, %,d bytes: %s;"
                            + " load %s -> %s",
                    copies,
                    n,
                    copies * bench.flowsPerCopy,
                    Files.size(pcap),
                    bench.rates(rates),
                    load,
                    JobBenchContext.load());
        } finally {
            Files.deleteIfExists(pcap);
        }
    }

    private double analyzeSeconds(Path pcap) throws IOException, InterruptedException {
        List<String> command =
                new ArrayList<>(List.of(bench.arg("analyze-command").split(" ")));
        command.addAll(List.of("analyze", "-q", "--json", pcap.toString()));
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder(command)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        int exit = p.waitFor();
        double seconds = (System.nanoTime() - t0) / 1e9;
        if (exit != 0) {
            throw new IllegalStateException(command + " exited with " + exit);
        }
        return seconds;
    }
}
