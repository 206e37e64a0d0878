package io.flowtrace.agent.bench;

import io.flowtrace.agent.batch.BatchLimits;
import io.flowtrace.agent.batch.BatchOptions;
import io.flowtrace.agent.kafka.ProducerSettings;
import io.flowtrace.agent.kafka.SpoolingPublisher;
import io.flowtrace.agent.metrics.AgentMetrics;
import io.flowtrace.agent.packets.BatchStage;
import io.flowtrace.agent.packets.CapturePublisher;
import io.flowtrace.agent.packets.PacketRecordWeight;
import io.flowtrace.agent.packets.ReplayPacer;
import io.flowtrace.agent.spool.DiskSpool;
import io.flowtrace.core.pcap.CaptureReader;
import io.flowtrace.core.pcap.CaptureRecord;
import io.flowtrace.core.pcap.DecodeStatus;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.core.pcap.PacketDecoder;
import io.flowtrace.core.pcap.PcapWriter;
import io.flowtrace.core.testing.TestData;
import io.flowtrace.testkit.KafkaBroker;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * Benchmark, not a test (docs/agent.md): file replay to Kafka in packets/s next to the raw decode
 * rate of the same file, in the same run, against the in-JVM KRaft broker.
 *
 * <pre>
 * mvn -q -pl agent -am test-compile -DskipTests
 * mvn -q -pl agent exec:java -Dexec.classpathScope=test -Dexec.mainClass=io.flowtrace.agent.bench.AgentThroughput \
 *     -Dexec.args="COPIES [CODECS [KAFKA_PROPERTIES [nostages]]]"
 * </pre>
 * Builds a capture of every testdata/tcp/*.pcap.gz repeated COPIES times (time-shifted, so each
 * copy is new flows' worth of packets, same 5-tuples), then measures (1) read + decode, (2) the
 * agent's own stages without Kafka, per-flow batching included, (3) the batches' size and the
 * latency the linger adds for several lingers, (4) read + decode + Avro + publish + acks=all for
 * each compression type, with per-flow batches (the default limits) and with batching off.
 */
public final class AgentThroughput {
    public static void main(String[] args) throws Exception {
        int copies = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        List<String> codecs = args.length > 1 ? List.of(args[1].split(",")) : List.of("lz4", "zstd", "none");
        Path clientConfig = args.length > 2 ? Path.of(args[2]) : null;
        boolean stages = args.length <= 3 || !args[3].equals("nostages");
        Path capture = Files.createTempFile("flowtrace-bench", ".pcap");
        long packets = build(capture, copies);
        System.out.printf("capture %s: %,d frames, %,d bytes%n", capture, packets, Files.size(capture));
        double decode = 0;
        double decodeCpuNs = Double.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            long cpu = THREADS.getCurrentThreadCpuTime();
            decode = Math.max(decode, decodeRate(capture));
            decodeCpuNs = Math.min(decodeCpuNs, (double) (THREADS.getCurrentThreadCpuTime() - cpu) / packets);
        }
        System.out.printf("decode only (best of 3): %,.0f packets/s; %.0f ns CPU/packet%n", decode, decodeCpuNs);
        for (int stage = 1; stage <= 3 && stages; stage++) {
            double best = 0;
            for (int i = 0; i < 3; i++) {
                best = Math.max(best, stageRate(capture, stage));
            }
            System.out.printf(
                    "stage %d %-28s (best of 3): %,.0f packets/s%n",
                    stage,
                    new String[] {"", "decode + flow key", "+ PacketEvent (toAvro)", "+ single-object encode"}[stage],
                    best);
        }
        if (stages) {
            double best = 0;
            for (int i = 0; i < 3; i++) {
                best = Math.max(best, BatchStage.rate(capture, BatchLimits.DEFAULTS));
            }
            System.out.printf("stage 4 %-28s (best of 3): %,.0f packets/s%n", "decode + key + PacketBatch", best);
            for (long lingerMs : new long[] {1, 5, 20, 50, 100}) {
                BatchLimits limits = new BatchLimits(
                        BatchLimits.DEFAULT_MAX_PACKETS,
                        BatchLimits.DEFAULT_MAX_BYTES,
                        TimeUnit.MILLISECONDS.toNanos(lingerMs),
                        BatchLimits.DEFAULT_MAX_OPEN_BATCHES);
                BatchStage.report(capture, limits);
            }
        }
        KafkaBroker kafka = new KafkaBroker();
        kafka.start();
        try {
            for (String codec : codecs) {
                for (boolean batched : new boolean[] {true, false}) {
                    String mode = batched ? "batched" : "off";
                    String topic = "bench-" + codec + "-" + mode;
                    kafka.createTopic(topic, 4);
                    publishRate(
                            kafka, capture, topic, codec, clientConfig, batched, true); // warm-up (JIT), not reported
                    String warm = topic + "-measured";
                    kafka.createTopic(warm, 4);
                    AgentMetrics m = new AgentMetrics();
                    double[] cpu = new double[2];
                    double rate = publishRate(kafka, capture, warm, codec, clientConfig, batched, false, m, cpu);
                    long log = logBytes(kafka, warm);
                    double agentNs = (cpu[0] + cpu[1]) / m.read.sum();
                    System.out.printf(
                            "publish %-5s %-7s: %,.0f packets/s = %.0f%% of decode; agent CPU %.0f ns/packet "
                                    + "(capture thread %.0f + producer I/O %.0f) = %.0f%% of decode's rate per CPU; %,d records "
                                    + "(%.1f packets each); log size %,d bytes (%.1f B/packet)%n",
                            codec,
                            mode,
                            rate,
                            100 * rate / decode,
                            agentNs,
                            cpu[0] / m.read.sum(),
                            cpu[1] / m.read.sum(),
                            100 * decodeCpuNs / agentNs,
                            m.publishedBatches.sum(),
                            (double) m.published.sum() / m.publishedBatches.sum(),
                            log,
                            (double) log / m.published.sum());
                }
            }
        } finally {
            kafka.close();
            Files.deleteIfExists(capture);
        }
    }

    private static final java.lang.management.ThreadMXBean THREADS =
            java.lang.management.ManagementFactory.getThreadMXBean();

    /** CPU time of the live producer I/O threads of client id "bench" (one per producer). */
    private static long producerIoCpu() {
        long n = 0;
        for (java.lang.management.ThreadInfo t : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
            if (t != null && t.getThreadName().startsWith("kafka-producer-network-thread | bench")) {
                n += Math.max(0, THREADS.getThreadCpuTime(t.getThreadId()));
            }
        }
        return n;
    }

    /** Bytes the topic's partitions hold on the broker's disk: what the compression saved. */
    private static long logBytes(KafkaBroker kafka, String topic) throws Exception {
        try (org.apache.kafka.clients.admin.Admin admin =
                org.apache.kafka.clients.admin.Admin.create(kafka.clientProperties())) {
            long bytes = 0;
            for (var dir : admin.describeLogDirs(List.of(0))
                    .allDescriptions()
                    .get()
                    .get(0)
                    .values()) {
                for (var e : dir.replicaInfos().entrySet()) {
                    if (e.getKey().topic().equals(topic)) {
                        bytes += e.getValue().size();
                    }
                }
            }
            return bytes;
        }
    }

    private static long build(Path out, int copies) throws Exception {
        List<Path> inputs;
        try (Stream<Path> s = Files.list(TestData.file("tcp"))) {
            inputs = s.filter(p -> p.toString().endsWith(".pcap.gz")).sorted().toList();
        }
        long n = 0;
        long shift = 0;
        try (OutputStream os = new BufferedOutputStream(Files.newOutputStream(out), 1 << 20)) {
            PcapWriter w = new PcapWriter(os, 1, 262144);
            for (int c = 0; c < copies; c++) {
                for (Path p : inputs) {
                    try (InputStream in = Files.newInputStream(p)) {
                        CaptureReader r = CaptureReader.open(in);
                        CaptureRecord rec = new CaptureRecord();
                        while (r.next(rec)) {
                            if (rec.linkType != 1) {
                                continue;
                            }
                            w.write(
                                    rec.timestampNanos + shift,
                                    rec.data,
                                    rec.dataOffset,
                                    rec.capturedLength,
                                    rec.wireLength);
                            n++;
                        }
                    }
                }
                shift += 3_600_000_000_000L;
            }
            w.close();
        }
        return n;
    }

    private static double decodeRate(Path capture) throws Exception {
        long start = System.nanoTime();
        long n = 0;
        long tcp = 0;
        try (InputStream in = new BufferedInputStream(Files.newInputStream(capture), 1 << 16)) {
            CaptureReader r = CaptureReader.open(in);
            CaptureRecord rec = new CaptureRecord();
            DecodedPacket p = new DecodedPacket();
            PacketDecoder d = new PacketDecoder();
            while (r.next(rec)) {
                n++;
                if (d.decode(rec, p) == DecodeStatus.TCP) {
                    tcp++;
                }
            }
        }
        if (tcp == 0) {
            throw new IllegalStateException("no TCP in " + capture);
        }
        return n / ((System.nanoTime() - start) / 1e9);
    }

    /** The agent's per-packet work without Kafka, cumulatively by stage. */
    private static double stageRate(Path capture, int stage) throws Exception {
        long start = System.nanoTime();
        long n = 0;
        long sink = 0;
        io.flowtrace.avro.Vantage v = io.flowtrace.avro.Vantage.newBuilder()
                .setAgentId("bench")
                .setInterfaceName("if0")
                .build();
        io.flowtrace.core.net.VantagePoint vantage = io.flowtrace.avro.mapping.PacketEvents.vantagePoint(v);
        java.io.ByteArrayOutputStream buf = new java.io.ByteArrayOutputStream(256);
        try (InputStream in = new BufferedInputStream(Files.newInputStream(capture), 1 << 16)) {
            CaptureReader r = CaptureReader.open(in);
            CaptureRecord rec = new CaptureRecord();
            DecodedPacket p = new DecodedPacket();
            PacketDecoder d = new PacketDecoder();
            while (r.next(rec)) {
                n++;
                if (d.decode(rec, p) != DecodeStatus.TCP) {
                    continue;
                }
                sink += io.flowtrace.avro.mapping.PacketEvents.flowKey(vantage, p)
                        .length();
                if (stage >= 2) {
                    io.flowtrace.avro.PacketEvent e = io.flowtrace.avro.mapping.PacketEvents.toAvro(p, v);
                    if (stage >= 3) {
                        buf.reset();
                        io.flowtrace.avro.PacketEvent.getEncoder().encode(e, buf);
                        sink += buf.size();
                    }
                }
            }
        }
        if (sink == 42) {
            System.out.print("");
        }
        return n / ((System.nanoTime() - start) / 1e9);
    }

    private static double publishRate(
            KafkaBroker kafka,
            Path capture,
            String topic,
            String codec,
            Path clientConfig,
            boolean batched,
            boolean warmUp)
            throws Exception {
        return publishRate(
                kafka, capture, topic, codec, clientConfig, batched, warmUp, new AgentMetrics(), new double[2]);
    }

    private static double publishRate(
            KafkaBroker kafka,
            Path capture,
            String topic,
            String codec,
            Path clientConfig,
            boolean batched,
            boolean warmUp,
            AgentMetrics metrics,
            double[] cpuNanos)
            throws Exception {
        Path spool = Files.createTempDirectory("flowtrace-bench-spool");
        long start = System.nanoTime();
        long captureCpu = THREADS.getCurrentThreadCpuTime();
        SpoolingPublisher publisher = new SpoolingPublisher(
                new KafkaProducer<>(ProducerSettings.build(kafka.bootstrapServers(), codec, clientConfig, "bench")),
                topic,
                DiskSpool.open(spool, 1L << 30, PacketRecordWeight.INSTANCE),
                metrics,
                5_000_000_000L,
                Duration.ofSeconds(60));
        CapturePublisher packets = new CapturePublisher(
                "bench",
                null,
                publisher,
                metrics,
                batched ? new BatchOptions(BatchLimits.DEFAULTS, BatchOptions.LingerClock.CAPTURE_TIME) : null);
        try (InputStream in = Files.newInputStream(capture)) {
            packets.publishAll(CaptureReader.open(in, packets), ReplayPacer.UNPACED, () -> false);
        }
        cpuNanos[0] = THREADS.getCurrentThreadCpuTime() - captureCpu;
        // The agent's CPU, not the broker's (it shares the JVM): this thread plus the producer's I/O
        // thread, read once every record is acknowledged and before close() ends that thread.
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (metrics.published.sum() < metrics.accepted.sum() && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        cpuNanos[1] = producerIoCpu();
        publisher.close(); // waits for every acknowledgement
        double seconds = (System.nanoTime() - start) / 1e9;
        if (!warmUp) {
            System.out.printf(
                    "  %s %s: %,d read, %,d published, %,d spooled in %.2f s%n",
                    codec,
                    batched ? "batched" : "off",
                    metrics.read.sum(),
                    metrics.published.sum(),
                    metrics.spooled.sum(),
                    seconds);
        }
        return metrics.read.sum() / seconds;
    }
}
