package io.flowtrace.jobs;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.avro.ConntrackSource;
import io.flowtrace.avro.PacketEvent;
import io.flowtrace.avro.Vantage;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.core.conntrack.ConntrackMessage;
import io.flowtrace.jobs.config.JobConfig;
import io.flowtrace.jobs.config.JobOption;
import io.flowtrace.jobs.conntrack.ConntrackFixtures;
import io.flowtrace.jobs.flow.FlowBatch;
import io.flowtrace.jobs.input.InputSources;
import io.flowtrace.jobs.output.JobSinks;
import io.flowtrace.jobs.output.PostgresSinks;
import io.flowtrace.testkit.KafkaBroker;
import io.flowtrace.testkit.PipelineServices;
import io.flowtrace.testkit.Postgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The whole job — packets as batches and as events, conntrack events, the join, every window and
 * sink, on both state backends — runs with {@code pipeline.generic-types: false}: Flink then refuses
 * to create a Kryo serializer for any record, state or window accumulator instead of falling back
 * to it silently, so the run finishing with its rows proves that no generic path is left.
 */
class NoGenericTypesITCase {
    private static final int PARALLELISM = 2;
    private static final Vantage CLIENT_SIDE = new Vantage("nokryo", "c0");
    private static final Vantage SERVER_SIDE = new Vantage("nokryo", "s0");
    private static final Vantage CONNTRACK = new Vantage("nokryo", "ftj-r");
    /** Connections with SYN loss: the join captures have no retransmission, so no TCP event of their own. */
    private static final Vantage LOSSY_SIDE = new Vantage("nokryo", "l0");

    private static final String LOSSY = "tcp/short-conns.sender.pcap.gz";

    @RegisterExtension
    static final PipelineServices SERVICES = PipelineServices.withSlots(PARALLELISM);

    static final KafkaBroker KAFKA = SERVICES.kafka();
    static final Postgres POSTGRES = SERVICES.postgres();

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"hashmap", "rocksdb"})
    void theJobRunsWithGenericTypesDisabled(String backend, @TempDir Path checkpoints) throws Exception {
        Map<String, String> o = ItJobOptions.of(
                        "nokryo-" + backend,
                        KAFKA.bootstrapServers(),
                        POSTGRES.jdbcUrl(),
                        Postgres.USER,
                        checkpoints,
                        PARALLELISM)
                .with(JobOption.STATE_BACKEND, backend)
                .with(JobOption.CONNTRACK_INPUT, true)
                .toMap();
        JobConfig config = JobConfig.of(o);
        JobTopics.create(KAFKA, PARALLELISM, config);
        publishPackets(config.get(JobOption.PACKETS_TOPIC));
        publishConntrack(config.get(JobOption.CONNTRACK_TOPIC));
        POSTGRES.execute("DROP TABLE IF EXISTS flow_summary, tcp_events, service_windows, vantage_windows,"
                + " conntrack_budgets, flow_conntrack, dead_letters");
        PostgresSinks.applySchema(config);

        Configuration flink = FlowtraceJob.flinkConfiguration(config);
        flink.set(PipelineOptions.GENERIC_TYPES, false);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(flink);
        new FlowtraceJob(
                        config,
                        InputSources.packets(config),
                        InputSources.conntrack(config),
                        JobSinks.fromConfig(config))
                .build(env);
        assertThat(env.getConfig().getSerializerConfig().hasGenericTypesDisabled())
                .isTrue();
        env.execute("flowtrace-no-generic-types-" + backend);

        int flows = CaptureFixtures.offlineReports("join/client.pcap", PacketEvents.vantage(CLIENT_SIDE))
                        .size()
                + CaptureFixtures.offlineReports("join/server.pcap", PacketEvents.vantage(SERVER_SIDE))
                        .size()
                + CaptureFixtures.offlineReports(LOSSY, PacketEvents.vantage(LOSSY_SIDE))
                        .size();
        assertThat(POSTGRES.query("SELECT count(*) AS n FROM flow_summary WHERE final")
                        .get(0)
                        .get("n"))
                .isEqualTo((long) flows);
        for (String table :
                List.of("tcp_events", "service_windows", "vantage_windows", "conntrack_budgets", "flow_conntrack")) {
            assertThat((Long) POSTGRES.query("SELECT count(*) AS n FROM " + table)
                            .get(0)
                            .get("n"))
                    .as(table)
                    .isPositive();
        }
    }

    /**
     * The client and the lossy capture as batches of up to 16 packets, the server capture as single
     * events, published as agents would: in capture order within each partition, so that nothing is
     * later than the watermark's out-of-orderness. The join captures first (client, then server: the
     * same second, within the 2 s bound), then the lossy capture, recorded on another day, moved to
     * start just after them. Published after a later capture in the same partition, a flow arrives
     * behind the watermark as a whole, and whether it stays one instance then depends on how far the
     * other partitions' watermark moves while its packets are read (docs/job.md, "Per-flow state and
     * time"): that made this test count 253 or 254 final rows for 252 flows under load.
     */
    private static void publishPackets(String topic) {
        try (KafkaProducer<byte[], byte[]> producer = KAFKA.newProducer()) {
            List<PacketEvent> client = CaptureFixtures.packets("join/client.pcap", CLIENT_SIDE);
            for (List<PacketEvent> cut : FlowBatches.cut(client, 16, 50_000_000L)) {
                FlowBatch b = FlowBatches.ofBatch(cut);
                producer.send(new ProducerRecord<>(topic, b.recordKey, b.value));
            }
            List<PacketEvent> server = CaptureFixtures.packets("join/server.pcap", SERVER_SIDE);
            for (PacketEvent p : server) {
                FlowBatch b = FlowBatches.ofEvent(p);
                producer.send(new ProducerRecord<>(topic, b.recordKey, b.value));
            }
            long joinEnd = Math.max(
                    client.get(client.size() - 1).getCaptureTimeNs(),
                    server.get(server.size() - 1).getCaptureTimeNs());
            List<PacketEvent> lossy = CaptureFixtures.packets(LOSSY, LOSSY_SIDE);
            long shift = joinEnd + 1_000_000L - lossy.get(0).getCaptureTimeNs();
            for (PacketEvent p : lossy) {
                p.setCaptureTimeNs(p.getCaptureTimeNs() + shift);
            }
            for (List<PacketEvent> cut : FlowBatches.cut(lossy, 16, 50_000_000L)) {
                FlowBatch b = FlowBatches.ofBatch(cut);
                producer.send(new ProducerRecord<>(topic, b.recordKey, b.value));
            }
            producer.flush();
        }
    }

    /** The recorded ctnetlink messages of the same connections, as the raw conntrack agent publishes them. */
    private static void publishConntrack(String topic) {
        try (KafkaProducer<byte[], byte[]> producer = KAFKA.newProducer()) {
            for (byte[] message : ConntrackFixtures.messages("../join/conntrack")) {
                ConntrackMessage core = ConntrackFixtures.parse(message);
                io.flowtrace.avro.ConntrackEvent avro =
                        ConntrackFixtures.toAvro(core, CONNTRACK, ConntrackSource.NETLINK);
                String key = PacketEvents.vantage(CONNTRACK) + " " + core.orig().srcText() + ":"
                        + core.orig().srcPort() + " " + core.orig().dstText() + ":"
                        + core.orig().dstPort();
                producer.send(new ProducerRecord<>(
                        topic, key.getBytes(UTF_8), avro.toByteBuffer().array()));
            }
            producer.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
