package io.flowtrace.jobs.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.flowtrace.avro.DeadLetter;
import io.flowtrace.avro.FlowEnd;
import io.flowtrace.avro.PacketEvent;
import io.flowtrace.avro.Vantage;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.jobs.CaptureFixtures;
import io.flowtrace.jobs.FlowBatches;
import io.flowtrace.jobs.FlowtraceJob;
import io.flowtrace.jobs.config.JobConfig;
import io.flowtrace.jobs.flow.FlowBatch;
import io.flowtrace.jobs.flow.FlowBatchTypeInfo;
import io.flowtrace.jobs.flow.FlowRow;
import io.flowtrace.jobs.flow.FlowSummary;
import io.flowtrace.jobs.output.JobSinks;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.api.java.typeutils.EitherTypeInfo;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.runtime.checkpoint.AbstractCheckpointStats;
import org.apache.flink.runtime.executiongraph.AccessExecutionJobVertex;
import org.apache.flink.runtime.executiongraph.ArchivedExecutionGraph;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Either;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A SYN flood through the job: {@code flood.flows} half-open flows (10^5 here, 10^6 with -Pfuzz-heavy),
 * each a single SYN from its own source to one server, spread evenly over the capture's time span
 * (52 s: ~1 900 SYNs/s at 10^5, ~19 000/s at 10^6), merged in time order with the packets of a real capture on the same vantage. The
 * source is a Flink DataGeneratorSource handing the job the same Either records its Kafka
 * deserializer would (the job takes its source as a parameter); Kafka is not in this path, the
 * malformed-record test covers it. Parallelism 1, so the capture's per-flow order is the source order.
 *
 * <p>Bounded state: every flood flow ends as IDLE within the half-open timeout ({@code --half-open-timeout-s},
 * default 30 s; -Dflood.half-open-timeout-s) of its SYN, all state of its key cleared (FlowAnalysisFunctionTest
 * checks the clearing), so at most rate × (timeout + slack) flood flows are alive at any event time;
 * the checkpointed size of the flow operator's state is logged and stays under a stated figure.
 * The capture's flows equal the offline analysis.
 */
class SynFloodITCase {
    private static final Logger LOG = LoggerFactory.getLogger(SynFloodITCase.class);
    private static final int FLOWS = Integer.getInteger("flood.flows", 100_000);
    private static final long HALF_OPEN_TIMEOUT_S = Long.getLong("flood.half-open-timeout-s", 30);
    private static final String CAPTURE = "tcp/short-conns.sender.pcap.gz";
    private static final Vantage VANTAGE = new Vantage("flood-itcase", "eth0");
    private static final byte[] VICTIM = {(byte) 198, 51, 100, 1};
    /**
     * The stated figure: checkpointed flow state at most 800 B per flow the half-open timeout lets be
     * alive at once (≈ 630 B measured per SYN-only flow), e.g. ≤ 33 MB for the 10^5 flood, where the
     * same flood without expiry would hold all 10^5 flows (≈ 63 MB).
     */
    private static final long MAX_STATE_BYTES_PER_LIVE_FLOW = 800;

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final String VICTIM_SERVICE = "198.51.100.1:80";
    /** Final records of the capture's flows, whole. */
    /** The report JSON of the final rows of the capture's flows (not the victim's). */
    static final Queue<String> FINALS = new ConcurrentLinkedQueue<>();
    /** Final records of the flood's flows, only what the test reads (10^6 whole reports would fill the heap). */
    static final Queue<FloodEnd> FLOOD = new ConcurrentLinkedQueue<>();

    record FloodEnd(long firstSeenUs, long recordTimeUs, FlowEnd end) {}

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(1)
            .build());

    @Test
    void halfOpenFlowsExpireSoStateStaysBoundedAndRealFlowsAreStillRight(
            @TempDir Path checkpoints, @InjectMiniCluster MiniCluster cluster) throws Exception {
        List<PacketEvent> capture = CaptureFixtures.packets(CAPTURE, VANTAGE);
        JobConfig config = JobConfig.of(Map.of(
                "half-open-timeout-s", Long.toString(HALF_OPEN_TIMEOUT_S),
                "checkpoint-interval-ms", "500",
                "checkpoint-dir", checkpoints.toUri().toString(),
                "state-backend", "hashmap",
                "restart-attempts", "0",
                "parallelism", "1",
                "conntrack-input", "false",
                "jdbc-password-env", ""));
        Map<String, JsonNode> offline = offlineReports(config.analyzerConfig());
        long start = capture.get(0).getCaptureTimeNs();
        // The flood spans the capture exactly: a SYN after the capture's last packet would move the
        // watermark past it, and the job would expire capture flows that analyze reports open at its end.
        long spacing = (capture.get(capture.size() - 1).getCaptureTimeNs() - start) / (FLOWS + 1L);
        FloodEvents events = FloodEvents.merge(capture, start, FLOWS, spacing);
        LOG.info(
                "flood: one SYN every {} µs of capture time ({} SYNs/s) over {} s",
                spacing / 1000,
                1_000_000_000L / spacing,
                spacing * FLOWS / 1_000_000_000L);

        DataGeneratorSource<Either<DeadLetter, FlowBatch>> source = new DataGeneratorSource<>(
                events,
                events.total(),
                RateLimiterStrategy.perSecond(20_000),
                new EitherTypeInfo<>(new AvroTypeInfo<>(DeadLetter.class), FlowBatchTypeInfo.INSTANCE));
        JobSinks sinks = new JobSinks(
                List.of(new FinalRecordSink()),
                List.of(),
                List.of(),
                List.of(),
                List.of(),
                List.of(),
                List.of(),
                List.of(new FinalRowSink()));
        FINALS.clear();
        FLOOD.clear();
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(FlowtraceJob.flinkConfiguration(config));
        new FlowtraceJob(config, source, sinks).build(env);
        long t0 = System.nanoTime();
        JobClient job = env.executeAsync("flowtrace-syn-flood");
        job.getJobExecutionResult().get();
        LOG.info(
                "{} flood SYNs + {} capture packets in {} ms",
                FLOWS,
                capture.size(),
                (System.nanoTime() - t0) / 1_000_000);

        List<FloodEnd> flood = new ArrayList<>(FLOOD);
        Map<String, JsonNode> real = new TreeMap<>();
        for (String json : FINALS) {
            JsonNode report = JSON.readTree(json);
            real.put(CaptureFixtures.identity(report), report);
        }
        assertThat(real.keySet()).isEqualTo(offline.keySet());
        for (String flow : offline.keySet()) {
            assertThat(CaptureFixtures.flatten(real.get(flow)))
                    .as("report of %s", flow)
                    .isEqualTo(CaptureFixtures.flatten(offline.get(flow)));
        }
        long aliveBound = assertFloodExpiredInTime(flood, start, spacing);
        assertCheckpointedStateBounded(cluster, job.getJobID(), aliveBound * MAX_STATE_BYTES_PER_LIVE_FLOW);
    }

    /**
     * {@code flowtrace analyze --json} of the capture with the job's analyser settings (the half-open
     * timeout differs from the default): core's offline pipeline, rendered by the schemas' report JSON.
     */
    private static Map<String, JsonNode> offlineReports(io.flowtrace.core.tcp.AnalyzerConfig analyzer)
            throws Exception {
        Map<String, JsonNode> reports = new TreeMap<>();
        try (java.io.InputStream in =
                java.nio.file.Files.newInputStream(io.flowtrace.core.testing.TestData.file(CAPTURE))) {
            new io.flowtrace.core.analysis.CaptureAnalysis(analyzer, iface -> PacketEvents.vantagePoint(VANTAGE))
                    .run(
                            in,
                            (key, instance, flow) -> {
                                try {
                                    JsonNode report =
                                            JSON.readTree(io.flowtrace.report.ReportJson.of(key, instance, flow));
                                    reports.put(CaptureFixtures.identity(report), report);
                                } catch (IOException e) {
                                    throw new UncheckedIOException(e);
                                }
                            },
                            io.flowtrace.core.tcp.TcpEventSinkFactory.NONE,
                            error -> {
                                throw new IllegalStateException(error);
                            },
                            records -> {});
        }
        assertThat(reports).as("offline flows").isNotEmpty();
        return reports;
    }

    /** Each flood SYN is one flow that ends IDLE within the half-open timeout, unless input ended first. */
    private static long assertFloodExpiredInTime(List<FloodEnd> flood, long startNs, long spacingNs) {
        assertThat(flood).hasSize(FLOWS);
        long endOfInputUs = (startNs + (FLOWS + 1L) * spacingNs) / 1000;
        long timeoutUs = HALF_OPEN_TIMEOUT_S * 1_000_000L;
        // watermark lag: out-of-orderness 2 s plus the 200 ms watermark interval at up to 20 000 records/s
        long slackUs = 10_000_000L;
        long longest = 0;
        long[] births = new long[flood.size()];
        long[] deaths = new long[flood.size()];
        int idle = 0;
        for (int i = 0; i < flood.size(); i++) {
            FloodEnd s = flood.get(i);
            births[i] = s.firstSeenUs();
            deaths[i] = s.recordTimeUs();
            if (s.end() == FlowEnd.IDLE) {
                idle++;
                longest = Math.max(longest, deaths[i] - births[i]);
            } else {
                assertThat(s.end())
                        .as("flood flow not expired must be reported open at end of input")
                        .isEqualTo(FlowEnd.OPEN);
                assertThat(births[i])
                        .as("only SYNs of the last timeout window are still open at the end")
                        .isGreaterThan(endOfInputUs - timeoutUs - slackUs);
                deaths[i] = endOfInputUs;
            }
        }
        assertThat(longest)
                .as("longest life of an expired half-open flow, µs")
                .isBetween(timeoutUs, timeoutUs + slackUs);
        long maxAlive = maxAlive(births, deaths);
        long bound = (timeoutUs + slackUs) * 1000 / spacingNs + 1;
        LOG.info(
                "flood: {} flows, {} expired IDLE, longest half-open life {} ms, at most {} alive at once (bound {})",
                flood.size(),
                idle,
                longest / 1000,
                maxAlive,
                bound);
        assertThat(maxAlive).isLessThanOrEqualTo(bound);
        assertThat(idle).isGreaterThan(FLOWS - (int) bound);
        return bound;
    }

    private static long maxAlive(long[] births, long[] deaths) {
        long[] b = births.clone();
        long[] d = deaths.clone();
        Arrays.sort(b);
        Arrays.sort(d);
        int alive = 0;
        int max = 0;
        int j = 0;
        for (long birth : b) {
            while (j < d.length && d[j] <= birth) {
                j++;
                alive--;
            }
            alive++;
            max = Math.max(max, alive);
        }
        return max;
    }

    private static void assertCheckpointedStateBounded(MiniCluster cluster, JobID job, long maxBytes) throws Exception {
        ArchivedExecutionGraph graph = cluster.getArchivedExecutionGraph(job).get();
        AccessExecutionJobVertex flowVertex = null;
        for (AccessExecutionJobVertex v : graph.getVerticesTopologically()) {
            if (v.getName().contains("flow-analysis")) {
                flowVertex = v;
            }
        }
        assertThat(flowVertex).as("flow-analysis vertex").isNotNull();
        long max = 0;
        int checkpoints = 0;
        for (AbstractCheckpointStats c :
                graph.getCheckpointStatsSnapshot().getHistory().getCheckpoints()) {
            var task = c.getTaskStateStats(flowVertex.getJobVertexId());
            if (task != null) {
                max = Math.max(max, task.getStateSize());
                checkpoints++;
            }
        }
        LOG.info(
                "flow-analysis checkpointed state: max {} bytes over {} checkpoints (stated bound {})",
                max,
                checkpoints,
                maxBytes);
        assertThat(checkpoints).isPositive();
        assertThat(max).isLessThan(maxBytes);
    }

    /** Keeps every final flow record (the flow operator's main output), in memory of this JVM. */
    static final class FinalRecordSink implements Sink<FlowSummary> {
        private static final long serialVersionUID = 1L;

        @Override
        public SinkWriter<FlowSummary> createWriter(WriterInitContext context) {
            return new SinkWriter<>() {
                @Override
                public void write(FlowSummary element, Context ctx) {
                    if (!element.finalRecord) {
                        return;
                    }
                    if (element.record().getFlow().getServer().equals(VICTIM_SERVICE)) {
                        FLOOD.add(new FloodEnd(
                                element.record().getFirstSeenUs(),
                                element.record().getRecordTimeUs(),
                                element.record().getEnd()));
                    }
                }

                @Override
                public void flush(boolean endOfInput) {}

                @Override
                public void close() {}
            };
        }
    }

    /** Keeps the report JSON of the final flow_summary rows of the capture's flows. */
    static final class FinalRowSink implements Sink<FlowRow> {
        private static final long serialVersionUID = 1L;

        @Override
        public SinkWriter<FlowRow> createWriter(WriterInitContext context) {
            return new SinkWriter<>() {
                @Override
                public void write(FlowRow row, Context ctx) throws java.io.IOException {
                    if (row.finalRecord
                            && !JSON.readTree(row.reportJson)
                                    .path("flow")
                                    .path("server")
                                    .asText()
                                    .equals(VICTIM_SERVICE)) {
                        FINALS.add(row.reportJson);
                    }
                }

                @Override
                public void flush(boolean endOfInput) {}

                @Override
                public void close() {}
            };
        }
    }

    /** Index → record: the capture's packets at their merge positions, flood SYNs everywhere else. */
    static final class FloodEvents implements GeneratorFunction<Long, Either<DeadLetter, FlowBatch>> {
        private static final long serialVersionUID = 1L;
        private final byte[][] capture;
        private final long[] positions;
        private final long startNs;
        private final int flows;
        private final long spacingNs;

        private FloodEvents(byte[][] capture, long[] positions, long startNs, int flows, long spacingNs) {
            this.capture = capture;
            this.positions = positions;
            this.startNs = startNs;
            this.flows = flows;
            this.spacingNs = spacingNs;
        }

        static FloodEvents merge(List<PacketEvent> packets, long startNs, int flows, long spacingNs) {
            byte[][] encoded = new byte[packets.size()][];
            long[] positions = new long[packets.size()];
            long k = 0; // flood SYNs placed before the current capture packet
            for (int j = 0; j < packets.size(); j++) {
                long t = packets.get(j).getCaptureTimeNs();
                while (k < flows && startNs + (k + 1) * spacingNs < t) {
                    k++;
                }
                positions[j] = j + k;
                encoded[j] = HostilePackets.encode(packets.get(j));
            }
            return new FloodEvents(encoded, positions, startNs, flows, spacingNs);
        }

        long total() {
            return (long) flows + capture.length;
        }

        @Override
        public Either<DeadLetter, FlowBatch> map(Long index) {
            int j = Arrays.binarySearch(positions, index);
            if (j >= 0) {
                try {
                    return Either.Right(
                            FlowBatches.ofEvent(PacketEvent.getDecoder().decode(capture[j])));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            long k = index - (-j - 1); // capture packets before this index
            return Either.Right(FlowBatches.ofEvent(syn(k)));
        }

        private PacketEvent syn(long k) {
            long h = mix(k);
            return PacketEvent.newBuilder()
                    .setCaptureTimeNs(startNs + (k + 1) * spacingNs)
                    .setVantage(VANTAGE)
                    .setIpVersion(4)
                    // 10.0.0.0/8 has room for 2^24 distinct sources: one flow per SYN
                    .setSrcAddr(ByteBuffer.wrap(new byte[] {10, (byte) (k >> 16), (byte) (k >> 8), (byte) k}))
                    .setDstAddr(ByteBuffer.wrap(VICTIM.clone()))
                    .setSrcPort(1024 + (int) ((h >>> 8) % 64_000))
                    .setDstPort(80)
                    .setIpId((int) (h & 0xffff))
                    .setTtl(64)
                    .setIpTotalLength(60)
                    .setTcpFlags(DecodedPacket.SYN)
                    .setSeq((h >>> 16) & 0xffff_ffffL)
                    .setAck(0)
                    .setWindow(64_240)
                    .setCapturedLength(74)
                    .setWireLength(74)
                    .setMss(1460)
                    .setWindowScale(7)
                    .setSackPermitted(true)
                    .build();
        }

        /** SplitMix64's finalizer: a fixed pseudo-random value per index. */
        private static long mix(long z) {
            z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
            z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
            return z ^ (z >>> 31);
        }
    }
}
