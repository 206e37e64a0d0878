package io.flowtrace.bench.job;

import static io.flowtrace.bench.job.JobBenchContext.report;

import io.flowtrace.avro.PacketEvent;
import io.flowtrace.core.pcap.DecodedPacket;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MetricOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.core.execution.JobClient;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * (5) The scale probe: {@code --scale-flows} concurrent open flows (idle flows as in (4): the first
 * packets of every connection, no FIN/RST, the same capture times so no timer fires) held by the
 * unbounded job, RocksDB state with the shipped FlinkDeployment's RocksDB settings ({@link #SHIPPED}),
 * parallelism 2, a checkpoint every 2 s, once per checkpoint kind of
 * {@code --scale-checkpoints} (incremental, as deploy/k8s/40-flowtrace-job.yaml runs it, and/or
 * full). Every {@code --scale-log-s} seconds a progress line: the records the consumer group has
 * committed and the flow vertex has read, the vertex's busy and back-pressured time, the latest
 * checkpoint's state size and duration, heap and resident memory, so a slow-down shows where it
 * starts. Once the group has committed every record, the next completed checkpoint (so it holds every
 * flow) as Flink's REST API reports it: state size, checkpointed size, end-to-end duration; bytes per
 * flow = state size / flows; and the JVM heap in use after a GC (MiniCluster, broker and database
 * share this JVM: read it as an upper bound). The probe gives up when nothing was read for
 * {@code --scale-stall-s} seconds, and says so with the last progress.
 */
final class ScalePhase {
    /** The FlinkDeployment whose {@code state.backend.rocksdb.*} settings the probe runs with. */
    static final Path SHIPPED = Path.of("deploy/k8s/40-flowtrace-job.yaml");

    private final JobBenchContext bench;
    private final StatePhase state;
    /** The Flink settings of every probe: the shipped RocksDB ones, then {@code --scale-flink}. */
    private final Map<String, String> settings;

    ScalePhase(JobBenchContext bench, StatePhase state) throws IOException {
        this.bench = bench;
        this.state = state;
        this.settings = new TreeMap<>(shippedRocksDbSettings(Files.readString(SHIPPED)));
        settings.putAll(flinkOptions(bench.arg("scale-flink")));
    }

    void run(long targetFlows) throws Exception {
        Map<String, Integer> perFlow = new HashMap<>();
        List<PacketEvent> idle = state.idlePackets(perFlow);
        int copies = (int) ((targetFlows + perFlow.size() - 1) / perFlow.size());
        long flows = (long) copies * perFlow.size();
        String topic = bench.newTopic("bench.scale");
        long t0 = System.nanoTime();
        long published = state.publishCopies(topic, idle, copies, new DecodedPacket());
        report(
                "  scale: published %,d packets of %,d idle flows in %.1f s",
                published, flows, (System.nanoTime() - t0) / 1e9);
        report("  scale: Flink settings %s (%s, then --scale-flink)", settings, SHIPPED);
        for (String kind : bench.arg("scale-checkpoints").split(",")) {
            probe(kind.strip(), topic, published, flows);
        }
    }

    private void probe(String kind, String topic, long published, long flows) throws Exception {
        if (!kind.equals("incremental") && !kind.equals("full")) {
            throw new IllegalArgumentException("--scale-checkpoints takes incremental and/or full, got " + kind);
        }
        String load = JobBenchContext.load();
        String run = "scale-" + kind + "-" + bench.nextSeq();
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        JobClient job = start(kind, topic, run, port);
        FlinkRest rest = new FlinkRest(port, job.getJobID().toString());
        ScaleProgress progress = new ScaleProgress(kind, published);
        long logNs = Long.parseLong(bench.arg("scale-log-s")) * 1_000_000_000L;
        long stallNs = Long.parseLong(bench.arg("scale-stall-s")) * 1_000_000_000L;
        FlinkRest.Checkpoint last = null;
        long after = Long.MAX_VALUE;
        long[] memory = null;
        try {
            while (true) {
                Thread.sleep(logNs / 1_000_000L);
                long committed = state.committed(topic, "bench-" + run);
                FlinkRest.Vertex v = rest.vertex("flow-analysis");
                last = rest.latestCheckpoint();
                report("%s", progress.line(committed, v, last, heapUsed(), residentBytes()));
                if (committed >= published) {
                    break;
                }
                if (progress.stalledNs() > stallNs) {
                    report(
                            "(5) scale: %s checkpoints: stalled, nothing read for %d s; %s",
                            kind, stallNs / 1_000_000_000L, progress.summary());
                    return;
                }
            }
            // the group commits a checkpoint's offsets when it completes, so the checkpoint after the latest one
            // seen once every record is committed holds every flow (the barrier follows the records)
            after = last.id();
            long deadline = System.nanoTime() + stallNs;
            while ((last = rest.latestCheckpoint()).id() <= after && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            System.gc(); // while the job holds its flows
            memory = new long[] {heapUsed(), residentBytes()};
        } finally {
            job.cancel().get();
        }
        if (last.id() <= after) {
            report("(5) scale: %s checkpoints: no checkpoint completed after the input was read", kind);
            return;
        }
        result(kind, flows, published, progress, last, memory, load);
    }

    /**
     * The job on RocksDB with {@code kind} checkpoints, its REST API on {@code port}, with the shipped
     * RocksDB settings ({@link #SHIPPED}) and then {@code --scale-flink}'s.
     */
    private JobClient start(String kind, String topic, String run, int port) throws Exception {
        Configuration flink = Configuration.fromMap(settings);
        flink.set(RestOptions.PORT, port);
        // the REST API's vertex metrics are fetched every 10 s by default: the progress lines' rates need fresher
        flink.set(MetricOptions.METRIC_FETCHER_UPDATE_INTERVAL, Duration.ofSeconds(1));
        flink.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, kind.equals("incremental"));
        return StatePhase.startWithoutSinks(state.idleJobOptions(topic, run, "rocksdb"), flink, run);
    }

    /** The (5) line of one probe: {@code last} is the first checkpoint completed after every record was committed. */
    private void result(
            String kind,
            long flows,
            long published,
            ScaleProgress progress,
            FlinkRest.Checkpoint last,
            long[] memory,
            String load) {
        long heap = memory[0];
        report(
                "(5) scale: %,d concurrent idle flows (%,d packets, read in %.1f s), RocksDB %s, %s checkpoints every "
                        + "2 s, parallelism 2: checkpoint %d state %,d bytes (checkpointed %,d), end-to-end %,d ms; "
                        + "%.0f bytes per flow in the checkpoint; JVM heap in use after GC %,d MiB (%.0f bytes per "
                        + "flow, upper bound); resident %,d MiB; flow threads' CPU %.1f s = %.1f us per record = %.0f us "
                        + "per flow; %s; load %s -> %s",
                flows,
                published,
                progress.readSeconds(),
                settings,
                kind,
                last.id(),
                last.stateSize(),
                last.checkpointedSize(),
                last.durationMs(),
                last.stateSize() / (double) flows,
                heap >> 20,
                heap / (double) flows,
                memory[1] >> 20,
                progress.flowCpuSeconds(),
                progress.flowCpuUsPerRecord(),
                progress.flowCpuUsPerRecord() * published / flows,
                progress.checkpointStats(),
                load,
                JobBenchContext.load());
    }

    /** The {@code state.backend.rocksdb.*} entries of a FlinkDeployment's {@code spec.flinkConfiguration}. */
    static Map<String, String> shippedRocksDbSettings(String yaml) {
        Map<String, String> rocksDb = new TreeMap<>();
        for (Object doc : new Load(LoadSettings.builder().build()).loadAllFromString(yaml)) {
            if (doc instanceof Map<?, ?> m
                    && "FlinkDeployment".equals(m.get("kind"))
                    && m.get("spec") instanceof Map<?, ?> spec
                    && spec.get("flinkConfiguration") instanceof Map<?, ?> conf) {
                conf.forEach((k, v) -> {
                    if (String.valueOf(k).startsWith("state.backend.rocksdb.")) {
                        rocksDb.put(String.valueOf(k), String.valueOf(v));
                    }
                });
            }
        }
        return rocksDb;
    }

    /** {@code --scale-flink name=value,...}: Flink settings for the probe's MiniCluster and job. */
    static Map<String, String> flinkOptions(String spec) {
        Map<String, String> o = new HashMap<>();
        for (String kv : spec.split(",")) {
            if (kv.contains("=")) {
                o.put(
                        kv.substring(0, kv.indexOf('=')).strip(),
                        kv.substring(kv.indexOf('=') + 1).strip());
            }
        }
        return o;
    }

    private static long heapUsed() {
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** This JVM's resident set (heap, RocksDB's native memory, the broker and the database's JVM side). */
    static long residentBytes() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }

    static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.1f MB", bytes / 1e6);
    }
}
