package io.flowtrace.jobs;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.avro.PacketEvent;
import io.flowtrace.avro.Vantage;
import io.flowtrace.jobs.output.AvroSingleObjectDeserializationSchema;
import io.flowtrace.jobs.output.AvroSingleObjectSerializationSchema;
import io.flowtrace.testkit.KafkaBroker;
import io.flowtrace.testkit.PipelineServices;
import io.flowtrace.testkit.Postgres;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.jdbc.JdbcConnectionOptions;
import org.apache.flink.connector.jdbc.JdbcExecutionOptions;
import org.apache.flink.connector.jdbc.core.datastream.sink.JdbcSink;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Proves the dependency set the job stands on, with real parts only: Avro single-object
 * PacketEvents on a real KRaft broker, a Flink MiniCluster (parallelism 2) reading them with
 * KafkaSource, a keyed ValueState counter per flow, and both sinks the job uses: JDBC Sink V2
 * upserts into a real PostgreSQL and an exactly-once (transactional) KafkaSink. Runs once per
 * state backend.
 */
class DependencySetITCase {

    private static final Logger LOG = LoggerFactory.getLogger(DependencySetITCase.class);
    private static final int PARALLELISM = 2;
    private static final int FLOWS = 24;
    private static final Vantage VANTAGE = new Vantage("itcase-agent", "eth0");

    @RegisterExtension
    static final PipelineServices SERVICES = PipelineServices.withSlots(PARALLELISM);

    static final KafkaBroker KAFKA = SERVICES.kafka();
    static final Postgres POSTGRES = SERVICES.postgres();

    /** State classes the counter saw, per run: proves which backend actually held the state. */
    static final Map<String, Set<String>> STATE_CLASSES = new ConcurrentHashMap<>();

    @BeforeAll
    static void createSinkTable() {
        POSTGRES.runSqlResource("/sql/dependency-set.sql");
    }

    @ParameterizedTest(name = "state.backend.type = {0}")
    @ValueSource(strings = {"hashmap", "rocksdb"})
    void countsPacketsPerFlowIntoPostgresAndExactlyOnceKafka(String backend, @TempDir Path checkpoints)
            throws Exception {
        String input = "packets-" + backend;
        String output = "flow-counts-" + backend;
        KAFKA.createTopic(input, PARALLELISM);
        KAFKA.createTopic(output, PARALLELISM);
        Map<String, Long> expected = publishPackets(input);

        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(jobConfig(backend, checkpoints));
        env.setParallelism(PARALLELISM);
        DataStream<FlowCount> counts = env.fromSource(
                        packetSource(input, backend), WatermarkStrategy.noWatermarks(), "packets")
                .keyBy(DependencySetITCase::canonicalFlowKey)
                .process(new PacketCounter(backend))
                .name("count-per-flow");
        counts.sinkTo(postgresSink(backend)).name("postgres");
        counts.sinkTo(kafkaSink(output, backend)).name("kafka");
        long started = System.nanoTime();
        env.execute("dependency-set-" + backend);
        LOG.info(
                "{}: job over {} packets finished in {} ms; keyed state classes {}",
                backend,
                expected.values().stream().mapToLong(Long::longValue).sum(),
                (System.nanoTime() - started) / 1_000_000,
                STATE_CLASSES.get(backend));

        assertThat(STATE_CLASSES.get(backend))
                .as("keyed state implementation")
                .isNotEmpty()
                .allMatch(name -> backend.equals("rocksdb") ? name.contains("RocksDB") : name.contains("Heap"));
        assertThat(postgresCounts(backend)).isEqualTo(new TreeMap<>(expected));
        assertExactlyOnceOutput(output, expected);
    }

    /** N packets in both directions of FLOWS flows; flow i carries 40 + 5 i packets. */
    private static Map<String, Long> publishPackets(String topic) throws UnknownHostException {
        Map<String, Long> expected = new HashMap<>();
        List<PacketEvent> packets = new ArrayList<>();
        long time = 1_732_924_800_000_000_000L;
        for (int flow = 0; flow < FLOWS; flow++) {
            int packetsInFlow = 40 + 5 * flow;
            for (int i = 0; i < packetsInFlow; i++) {
                boolean fromClient = i % 3 != 2;
                packets.add(packet(time += 10_000, flow, fromClient, i));
            }
            expected.put(canonicalFlowKey(packets.get(packets.size() - 1)), (long) packetsInFlow);
        }
        AvroSingleObjectSerializationSchema<PacketEvent> values =
                AvroSingleObjectSerializationSchema.of(PacketEvent.class);
        try (KafkaProducer<byte[], byte[]> producer = KAFKA.newProducer()) {
            for (PacketEvent packet : packets) {
                producer.send(new ProducerRecord<>(
                        topic, canonicalFlowKey(packet).getBytes(UTF_8), values.serialize(packet)));
            }
            producer.flush();
        }
        return expected;
    }

    private static PacketEvent packet(long timeNs, int flow, boolean fromClient, int index)
            throws UnknownHostException {
        byte[] client = InetAddress.getByName("10.1.0." + (flow + 1)).getAddress();
        byte[] server = InetAddress.getByName("10.2.0.1").getAddress();
        int clientPort = 40_000 + flow;
        return PacketEvent.newBuilder()
                .setCaptureTimeNs(timeNs)
                .setVantage(VANTAGE)
                .setIpVersion(4)
                .setSrcAddr(ByteBuffer.wrap(fromClient ? client : server))
                .setDstAddr(ByteBuffer.wrap(fromClient ? server : client))
                .setSrcPort(fromClient ? clientPort : 443)
                .setDstPort(fromClient ? 443 : clientPort)
                .setIpId(index)
                .setTtl(64)
                .setIpTotalLength(fromClient ? 1500 : 52)
                .setTcpFlags(0x10)
                .setSeq(1_000L + 1448L * index)
                .setAck(1L)
                .setWindow(501)
                .setPayloadLength(fromClient ? 1448 : 0)
                .setCapturedLength(96)
                .setWireLength(fromClient ? 1514 : 66)
                .build();
    }

    /** Both directions of a connection map to one key: vantage, then the two endpoints in byte order. */
    static String canonicalFlowKey(PacketEvent p) {
        String a = endpoint(p.getSrcAddr(), p.getSrcPort());
        String b = endpoint(p.getDstAddr(), p.getDstPort());
        String low = a.compareTo(b) <= 0 ? a : b;
        String high = low.equals(a) ? b : a;
        return p.getVantage().getAgentId() + "/" + p.getVantage().getInterfaceName() + " " + low + " " + high;
    }

    private static String endpoint(ByteBuffer address, int port) {
        StringBuilder hex = new StringBuilder();
        for (int i = address.position(); i < address.limit(); i++) {
            hex.append(String.format("%02x", address.get(i)));
        }
        return hex + ":" + String.format("%05d", port);
    }

    private static Configuration jobConfig(String backend, Path checkpoints) {
        Configuration config = new Configuration();
        config.set(StateBackendOptions.STATE_BACKEND, backend);
        // The exactly-once KafkaSink commits on checkpoint completion; the final checkpoint at
        // end of input commits the last transaction, so a short interval keeps the test fast.
        config.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(200));
        config.set(
                CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.toUri().toString());
        return config;
    }

    private static KafkaSource<PacketEvent> packetSource(String topic, String backend) {
        return KafkaSource.<PacketEvent>builder()
                .setBootstrapServers(KAFKA.bootstrapServers())
                .setTopics(topic)
                .setGroupId("dependency-set-" + backend)
                .setStartingOffsets(OffsetsInitializer.earliest())
                .setBounded(OffsetsInitializer.latest())
                .setValueOnlyDeserializer(AvroSingleObjectDeserializationSchema.of(PacketEvent.class))
                .build();
    }

    private static JdbcSink<FlowCount> postgresSink(String run) {
        // Idempotent upsert: a replayed (older) count never overwrites a newer one.
        String upsert = "INSERT INTO flow_packet_counts (run, flow, packets) VALUES (?, ?, ?) "
                + "ON CONFLICT (run, flow) DO UPDATE SET packets = EXCLUDED.packets "
                + "WHERE flow_packet_counts.packets < EXCLUDED.packets";
        return JdbcSink.<FlowCount>builder()
                .withQueryStatement(upsert, (statement, count) -> {
                    statement.setString(1, run);
                    statement.setString(2, count.flow());
                    statement.setLong(3, count.packets());
                })
                .withExecutionOptions(JdbcExecutionOptions.builder()
                        .withBatchSize(500)
                        .withBatchIntervalMs(200)
                        .withMaxRetries(3)
                        .build())
                .buildAtLeastOnce(new JdbcConnectionOptions.JdbcConnectionOptionsBuilder()
                        .withUrl(POSTGRES.jdbcUrl())
                        .withDriverName("org.postgresql.Driver")
                        .withUsername(Postgres.USER)
                        .build());
    }

    private static KafkaSink<FlowCount> kafkaSink(String topic, String backend) {
        return KafkaSink.<FlowCount>builder()
                .setBootstrapServers(KAFKA.bootstrapServers())
                .setRecordSerializer(KafkaRecordSerializationSchema.<FlowCount>builder()
                        .setTopic(topic)
                        .setKeySerializationSchema(new FlowKeyBytes())
                        .setValueSerializationSchema(new PacketCountBytes())
                        .build())
                .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
                .setTransactionalIdPrefix("dependency-set-" + backend)
                // The sink's default transaction timeout (1 h) exceeds the broker's
                // transaction.max.timeout.ms (15 min): the producer would be refused.
                .setProperty("transaction.timeout.ms", "60000")
                .build();
    }

    private static Map<String, Long> postgresCounts(String run) {
        Map<String, Long> counts = new TreeMap<>();
        for (Map<String, Object> row :
                POSTGRES.query("SELECT flow, packets FROM flow_packet_counts WHERE run = ? ORDER BY flow", run)) {
            counts.put((String) row.get("flow"), (Long) row.get("packets"));
        }
        return counts;
    }

    /** Every update of every flow exactly once: for a flow of n packets, the values 1..n, in order. */
    private static void assertExactlyOnceOutput(String topic, Map<String, Long> expected) {
        List<ConsumerRecord<byte[], byte[]>> records = KAFKA.readCommitted(topic);
        Map<String, List<Long>> valuesByFlow = records.stream()
                .collect(Collectors.groupingBy(
                        r -> new String(r.key(), UTF_8),
                        TreeMap::new,
                        Collectors.mapping(r -> Long.parseLong(new String(r.value(), UTF_8)), Collectors.toList())));

        assertThat(records).hasSize((int)
                expected.values().stream().mapToLong(Long::longValue).sum());
        assertThat(valuesByFlow.keySet()).isEqualTo(new TreeMap<>(expected).keySet());
        valuesByFlow.forEach((flow, values) -> assertThat(values)
                .as("updates of %s", flow)
                .isEqualTo(LongStream.rangeClosed(1, expected.get(flow)).boxed().toList()));
    }

    // Named classes, not lambdas: KafkaSink extracts the element type of its serialization
    // schemas, and Flink's type extraction cannot see through a lambda's generic interface.
    static final class FlowKeyBytes implements SerializationSchema<FlowCount> {
        private static final long serialVersionUID = 1L;

        @Override
        public byte[] serialize(FlowCount count) {
            return count.flow().getBytes(UTF_8);
        }
    }

    static final class PacketCountBytes implements SerializationSchema<FlowCount> {
        private static final long serialVersionUID = 1L;

        @Override
        public byte[] serialize(FlowCount count) {
            return Long.toString(count.packets()).getBytes(UTF_8);
        }
    }

    /** The number of packets a flow has had so far. */
    public record FlowCount(String flow, long packets) {}

    /** Keyed ValueState counter: one update per packet. */
    static final class PacketCounter extends KeyedProcessFunction<String, PacketEvent, FlowCount> {

        private static final long serialVersionUID = 1L;

        private final String run;
        private transient ValueState<Long> packets;

        PacketCounter(String run) {
            this.run = run;
        }

        @Override
        public void open(OpenContext context) {
            packets = getRuntimeContext().getState(new ValueStateDescriptor<>("packets", Long.class));
            STATE_CLASSES
                    .computeIfAbsent(run, r -> ConcurrentHashMap.newKeySet())
                    .add(packets.getClass().getName());
        }

        @Override
        public void processElement(PacketEvent packet, Context context, Collector<FlowCount> out) throws Exception {
            Long seen = packets.value();
            long now = seen == null ? 1 : seen + 1;
            packets.update(now);
            out.collect(new FlowCount(context.getCurrentKey(), now));
        }
    }
}
