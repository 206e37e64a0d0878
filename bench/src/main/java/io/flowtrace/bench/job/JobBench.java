package io.flowtrace.bench.job;

import static io.flowtrace.bench.job.JobBenchContext.report;

import io.flowtrace.bench.Packets;
import io.flowtrace.testkit.KafkaBroker;
import io.flowtrace.testkit.Postgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The job benchmark (docs/BENCHMARKS.md "## Job"), all in one JVM: testkit's
 * in-process KRaft broker and embedded PostgreSQL, the job on a local MiniCluster per run.
 *
 * <ol>
 *   <li>(0) optionally, {@code flowtrace analyze --json} on the same capture replicated the same way;
 *   <li>fill a topic with N packets (rounded up to whole copies) of a real capture replicated with
 *       shifted addresses and times, as per-flow PacketBatches ({@code --batch} packets at most,
 *       {@code --linger-ms} of capture time, flushed at FIN/RST; {@code --batch 0}: PacketEvents);
 *   <li>(1) plain KafkaConsumer from the beginning + Avro decode of every record and packet;
 *   <li>(2) the whole job (bounded) on the same topic to PostgreSQL and exactly-once Kafka, parallelism 1
 *       and 2: wall time, and the steady rate over the middle 80 % of the input ({@link ThroughputPhase});
 *   <li>(3) event → PostgreSQL latency at a paced input rate ({@link LatencyPhase});
 *   <li>(C) the Flink ceiling: the same source, keyBy flow key, a discarding sink ({@link CeilingPhase});
 *   <li>(4) state bytes per idle flow, heap and RocksDB (savepoint size / live flows);
 *   <li>(5) the scale probe: {@code --scale-flows} open flows in RocksDB, checkpoint size and duration
 *       ({@link ScalePhase});
 *   <li>(6) event → Kafka flows topic latency under exactly-once, read_committed, at each checkpoint
 *       interval of {@code --kafka-latency-checkpoint-intervals-ms} ({@link KafkaLatencyPhase}).
 * </ol>
 * Every result row gives packets/s and flows/s (the input is whole copies, so flows per packet is
 * exact) and the load average before and after it; the run ends with {@link Targets}' ratio lines.
 * Every measurement is repeated and reported as median [min, max]. One class per phase
 * ({@link AnalyzePhase}, {@link ConsumePhase}, {@link ThroughputPhase}, {@link LatencyPhase},
 * {@link StatePhase}) on the shared {@link JobBenchContext}; the input is {@link InputTopic}.
 *
 * <p>Usage: {@code bench/job-bench.sh [--packets N] [--runs R] [--rate PPS] [--latency-seconds S]
 * [--latency-runs R] [--kafka-latency-checkpoint-intervals-ms 2000,10000] [--idle-copies C] [--parallelism 1,2] [--capture testdata/...] [--batch 512] [--linger-ms 20]
 * [--outputs all|kafka|postgres] [--analyze-command ./flowtrace] [--scale-flows 1000000] [--scale-checkpoints incremental,full] [--scale-flink name=value,...] [--scale-log-s 5] [--scale-stall-s 300] [--job-options name=value,...]}; {@code --rate half-steady}
 * (the default) offers half the steady rate (2) measured earlier in the run; phases
 * {@code analyze,consume,ceiling,job,latency,state,scale,kafka-latency} (default: the first five).
 * {@code bench/job-targets.sh} runs what the targets need in one command.
 */
public final class JobBench {
    private final Map<String, String> args;
    private final KafkaBroker kafka = new KafkaBroker();
    private final Postgres postgres = new Postgres();
    private final Path work;

    private JobBench(Map<String, String> args) throws IOException {
        this.args = args;
        this.work = Files.createTempDirectory("flowtrace-job-bench");
    }

    public static void main(String[] argv) throws Exception {
        Map<String, String> a = new LinkedHashMap<>();
        a.put("packets", "1000000");
        a.put("runs", "5");
        a.put("rate", "half-steady");
        a.put("latency-checkpoint-interval-ms", "10000");
        a.put("kafka-latency-checkpoint-intervals-ms", "2000,10000");
        a.put("scale-flows", "1000000");
        a.put("scale-checkpoints", "incremental");
        a.put("scale-flink", "");
        a.put("scale-log-s", "5");
        a.put("scale-stall-s", "300");
        a.put("job-options", "");
        a.put("latency-seconds", "20");
        a.put("latency-runs", "3");
        a.put("idle-copies", "10000");
        a.put("parallelism", "1,2");
        a.put("capture", "join/client.pcap");
        a.put("phases", "analyze,consume,ceiling,job,latency");
        a.put("checkpoint-interval-ms", "2000");
        a.put("batch", "512");
        a.put("linger-ms", "20");
        a.put("outputs", "all");
        a.put("analyze-command", "./flowtrace");
        for (int i = 0; i < argv.length; i += 2) {
            if (!argv[i].startsWith("--") || i + 1 >= argv.length || !a.containsKey(argv[i].substring(2))) {
                System.err.println("usage: JobBench "
                        + a.keySet().stream()
                                .map(k -> "[--" + k + " " + a.get(k) + "]")
                                .reduce((x, y) -> x + " " + y)
                                .orElse(""));
                System.exit(2);
            }
            a.put(argv[i].substring(2), argv[i + 1]);
        }
        new JobBench(a).run();
        System.exit(0); // MiniCluster and client threads are not all daemons
    }

    private void run() throws Exception {
        kafka.start();
        postgres.start();
        try {
            report(
                    "machine: %s, %d cores, Java %s, max heap %d MiB; options %s",
                    System.getProperty("os.name") + " " + System.getProperty("os.version"),
                    Runtime.getRuntime().availableProcessors(),
                    System.getProperty("java.version"),
                    Runtime.getRuntime().maxMemory() >> 20,
                    args);
            BenchPackets packets = new BenchPackets(Packets.testdata(args.get("capture")), JobBenchContext.VANTAGE);
            long flowsPerCopy = packets.offlineFlows();
            report(
                    "capture %s: %d TCP packets and %d flows per copy",
                    args.get("capture"), packets.size(), flowsPerCopy);
            runPhases(new JobBenchContext(args, kafka, postgres, work, packets, flowsPerCopy));
        } finally {
            postgres.close();
            kafka.close();
        }
    }

    private void runPhases(JobBenchContext bench) throws Exception {
        List<String> phases = List.of(args.get("phases").split(","));
        long n = Long.parseLong(args.get("packets"));
        long perCopy = bench.packets.size();
        n = (n + perCopy - 1) / perCopy * perCopy; // whole copies: the flow count is exact
        int runs = Integer.parseInt(args.get("runs"));
        InputTopic input = null;
        if (phases.contains("consume") || phases.contains("job") || phases.contains("ceiling")) {
            long t0 = System.nanoTime();
            input = InputTopic.fill(bench, n);
            report(
                    "filled %s with %,d packets in %,d records (%s; %,d copies, times shifted per copy) in %.1f s",
                    input.name(), n, input.records(), bench.batching(), n / perCopy, (System.nanoTime() - t0) / 1e9);
        }
        if (phases.contains("analyze")) {
            new AnalyzePhase(bench).run(n, runs);
        }
        if (phases.contains("consume")) {
            new ConsumePhase(bench).run(input, runs);
        }
        if (phases.contains("ceiling")) {
            new CeilingPhase(bench).run(input, runs);
        }
        if (phases.contains("job")) {
            new ThroughputPhase(bench).run(input, runs);
        }
        if (phases.contains("latency")) {
            new LatencyPhase(bench).run();
        }
        if (phases.contains("kafka-latency")) {
            new KafkaLatencyPhase(bench).run();
        }
        if (phases.contains("state")) {
            new StatePhase(bench).run(Integer.parseInt(args.get("idle-copies")));
        }
        if (phases.contains("scale")) {
            new StatePhase(bench).scale(Long.parseLong(args.get("scale-flows")));
        }
        Targets.print(bench);
    }
}
