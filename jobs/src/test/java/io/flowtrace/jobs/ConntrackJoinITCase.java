package io.flowtrace.jobs;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.avro.ConntrackSource;
import io.flowtrace.avro.PacketEvent;
import io.flowtrace.avro.Vantage;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.core.conntrack.ConntrackMessage;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.core.testing.TestData;
import io.flowtrace.jobs.config.JobConfig;
import io.flowtrace.jobs.config.JobOption;
import io.flowtrace.jobs.conntrack.ConntrackFixtures;
import io.flowtrace.jobs.input.InputSources;
import io.flowtrace.jobs.output.JobSinks;
import io.flowtrace.jobs.output.PostgresSinks;
import io.flowtrace.testkit.KafkaBroker;
import io.flowtrace.testkit.PipelineServices;
import io.flowtrace.testkit.Postgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The conntrack ↔ flow join end to end on real parts, and the state backends compared: the packets
 * of testdata/join/client.pcap (c0, before the NAT) and server.pcap (s0, after it) and the raw
 * ctnetlink messages recorded in the router at the same time (scripts/capture-join.sh), published to
 * a real KRaft broker; the job on a MiniCluster (parallelism 2, bounded) writes to real PostgreSQL.
 *
 * <p>Independent truths: the NAT mapping is what the nft rules imposed (testdata/join/facts); the
 * conntrack counters, start and stop are the kernel's, as the python reference decoder
 * (scripts/lab/ct_dump.py) read them from the DESTROY messages (conntrack.attrs.txt); the capture
 * loss is the number of packets this test removed from client.pcap before publishing (s0's capture
 * is complete: its loss is 0).
 *
 * <p>The job runs twice on the same topics, with {@code state-backend} hashmap and rocksdb: every
 * sink table must hold identical rows.
 */
class ConntrackJoinITCase {
    private static final Logger LOG = LoggerFactory.getLogger(ConntrackJoinITCase.class);
    private static final int PARALLELISM = 2;
    private static final Vantage CLIENT_SIDE = new Vantage("lab-join", "c0");
    private static final Vantage SERVER_SIDE = new Vantage("lab-join", "s0");
    private static final Vantage CONNTRACK = new Vantage("lab-join", "ftj-r");
    /** Tables compared across backends, with the columns that order them. */
    private static final Map<String, String> TABLES = Map.of(
            "flow_summary", "vantage, client, server, instance",
            "flow_conntrack", "vantage, client, server, instance",
            "tcp_events", "1, 2, 3, 4, 5",
            "service_windows", "1, 2, 3",
            "vantage_windows", "1, 2, 3",
            "conntrack_budgets", "vantage, window_size_ms, window_start");

    @RegisterExtension
    static final PipelineServices SERVICES = PipelineServices.withSlots(PARALLELISM);

    static final KafkaBroker KAFKA = SERVICES.kafka();
    static final Postgres POSTGRES = SERVICES.postgres();

    /** The kernel's view of one connection (DESTROY message, decoded by ct_dump.py). */
    record Destroy(
            long id,
            String origSrc,
            String origDst,
            String replySrc,
            String replyDst,
            long origPackets,
            long origBytes,
            long replyPackets,
            long replyBytes,
            long startNs,
            long stopNs) {}

    @Test
    void joinsFlowsOnBothSidesOfTheNatWithTheKernelsCountersAndIdenticalRowsOnHeapAndRocksdb(@TempDir Path tmp)
            throws Exception {
        Properties facts = new Properties();
        try (var in = Files.newInputStream(TestData.file("join/facts"))) {
            facts.load(in);
        }
        Map<Integer, Destroy> destroys = destroys(); // by the client's source port
        assertThat(destroys).hasSize(Integer.parseInt(facts.getProperty("connections")));

        JobConfig common = ItJobOptions.of(
                        "itjoin", KAFKA.bootstrapServers(), POSTGRES.jdbcUrl(), Postgres.USER, tmp, PARALLELISM)
                .config();
        KAFKA.createTopics(PARALLELISM, common.get(JobOption.PACKETS_TOPIC), common.get(JobOption.CONNTRACK_TOPIC));
        // Removed on purpose from c0's capture: per "client port direction", the count (the expected loss).
        Map<String, Long> dropped = new TreeMap<>();
        publishPackets(common.get(JobOption.PACKETS_TOPIC), dropped);
        publishConntrack(common.get(JobOption.CONNTRACK_TOPIC));
        assertThat(dropped.values().stream().mapToLong(Long::longValue).sum()).isGreaterThan(5);

        Map<String, Map<String, List<String>>> tablesByBackend = new TreeMap<>();
        for (String backend : List.of("hashmap", "rocksdb")) {
            for (String table : TABLES.keySet()) {
                POSTGRES.execute("DROP TABLE IF EXISTS " + table);
            }
            // a job of its own per backend: its group, transactions, output topics and checkpoints
            Path checkpoints = Files.createDirectories(tmp.resolve(backend));
            JobConfig config = ItJobOptions.of(
                            "itjoin-" + backend,
                            KAFKA.bootstrapServers(),
                            POSTGRES.jdbcUrl(),
                            Postgres.USER,
                            checkpoints,
                            PARALLELISM)
                    .with(JobOption.PACKETS_TOPIC, common.get(JobOption.PACKETS_TOPIC))
                    .with(JobOption.CONNTRACK_TOPIC, common.get(JobOption.CONNTRACK_TOPIC))
                    .with(JobOption.STATE_BACKEND, backend)
                    .config();
            JobTopics.create(KAFKA, PARALLELISM, config, JobTopics.OUTPUTS);
            PostgresSinks.applySchema(config);
            StreamExecutionEnvironment env =
                    StreamExecutionEnvironment.getExecutionEnvironment(FlowtraceJob.flinkConfiguration(config));
            new FlowtraceJob(
                            config,
                            InputSources.packets(config),
                            InputSources.conntrack(config),
                            JobSinks.fromConfig(config))
                    .build(env);
            long started = System.nanoTime();
            env.execute("conntrack-join-itcase-" + backend);
            LOG.info("{}: join job finished in {} ms", backend, (System.nanoTime() - started) / 1_000_000);
            assertJoin(facts, destroys, dropped);
            Map<String, List<String>> tables = new TreeMap<>();
            for (Map.Entry<String, String> t : TABLES.entrySet()) {
                tables.put(
                        t.getKey(),
                        POSTGRES.query("SELECT * FROM " + t.getKey() + " ORDER BY " + t.getValue()).stream()
                                .map(r -> new TreeMap<>(r).toString())
                                .sorted()
                                .toList());
            }
            tablesByBackend.put(backend, tables);
        }
        Map<String, List<String>> heap = tablesByBackend.get("hashmap");
        assertThat(heap.get("flow_summary")).hasSize(12);
        assertThat(heap.get("service_windows")).isNotEmpty();
        assertThat(heap.get("conntrack_budgets")).isNotEmpty();
        for (String table : TABLES.keySet()) {
            assertThat(tablesByBackend.get("rocksdb").get(table))
                    .as("%s rows, rocksdb vs hashmap", table)
                    .containsExactlyElementsOf(heap.get(table));
        }
    }

    private static void assertJoin(Properties facts, Map<Integer, Destroy> destroys, Map<String, Long> dropped) {
        List<Map<String, Object>> rows = POSTGRES.query("SELECT * FROM flow_conntrack ORDER BY vantage, client");
        assertThat(rows).as("one row per connection and vantage").hasSize(2 * destroys.size());
        String client = facts.getProperty("client");
        String dnatFrom = facts.getProperty("dnat_from");
        String dnatTo = facts.getProperty("dnat_to");
        String masq = facts.getProperty("masquerade_source");
        for (Map<String, Object> r : rows) {
            String vantage = (String) r.get("vantage");
            boolean clientSide = vantage.equals("lab-join/c0");
            // The NAT the nft rules imposed, whichever side the flow was captured on.
            String preClient = (String) r.get("pre_nat_client");
            assertThat(preClient).startsWith(client + ":");
            int port = Integer.parseInt(preClient.substring(preClient.indexOf(':') + 1));
            Destroy d = destroys.get(port);
            assertThat(d).as("DESTROY of client port %d", port).isNotNull();
            assertThat(r.get("pre_nat_server")).isEqualTo(dnatFrom);
            assertThat(r.get("post_nat_server")).isEqualTo(dnatTo);
            assertThat((String) r.get("post_nat_client")).startsWith(masq + ":");
            assertThat(r.get("nat")).isEqualTo("snat+dnat");
            assertThat(r.get("tuple_side")).isEqualTo(clientSide ? "original" : "reply");
            assertThat(r.get("client")).isEqualTo(clientSide ? preClient : r.get("post_nat_client"));
            assertThat(r.get("server")).isEqualTo(clientSide ? dnatFrom : dnatTo);
            assertThat(r.get("ct_vantage")).isEqualTo("lab-join/ftj-r");
            // The kernel's counters and lifetime (DESTROY).
            assertThat(r.get("ct_id")).isEqualTo(d.id());
            assertThat(r.get("ct_destroyed")).isEqualTo(true);
            assertThat(r.get("flow_final")).isEqualTo(true);
            assertThat(r.get("ct_c2s_packets")).isEqualTo(d.origPackets());
            assertThat(r.get("ct_c2s_bytes")).isEqualTo(d.origBytes());
            assertThat(r.get("ct_s2c_packets")).isEqualTo(d.replyPackets());
            assertThat(r.get("ct_s2c_bytes")).isEqualTo(d.replyBytes());
            assertThat(r.get("ct_start_ns")).isEqualTo(d.startNs());
            assertThat(r.get("ct_stop_ns")).isEqualTo(d.stopNs());
            assertThat(r.get("ct_tcp_state")).isEqualTo(7); // TIME_WAIT: both sides closed
            // Capture loss: exactly what this test removed; none on s0.
            long c2sDropped = clientSide ? dropped.getOrDefault(port + " c2s", 0L) : 0;
            long s2cDropped = clientSide ? dropped.getOrDefault(port + " s2c", 0L) : 0;
            assertThat(r.get("c2s_missing_packets"))
                    .as("c2s loss of %s port %d", vantage, port)
                    .isEqualTo(c2sDropped);
            assertThat(r.get("s2c_missing_packets"))
                    .as("s2c loss of %s port %d", vantage, port)
                    .isEqualTo(s2cDropped);
            assertThat((Long) r.get("captured_c2s_packets") + c2sDropped).isEqualTo(d.origPackets());
            assertThat((Long) r.get("captured_s2c_packets") + s2cDropped).isEqualTo(d.replyPackets());
        }
        // The join's rows name flow_summary's instances.
        assertThat(POSTGRES.query("""
                SELECT count(*) AS n FROM flow_conntrack j JOIN flow_summary f
                  ON (f.vantage, f.client, f.server, f.instance) = (j.vantage, j.client, j.server, j.instance)
                """).get(0).get("n")).isEqualTo((long) rows.size());
    }

    /** ct_dump.py's lines of the DESTROY messages, by the original source port. */
    private static Map<Integer, Destroy> destroys() throws IOException {
        Map<Integer, Destroy> out = new TreeMap<>();
        for (String line : Files.readAllLines(TestData.file("join/conntrack.attrs.txt"))) {
            Map<String, String> f = new HashMap<>();
            for (String kv : line.split(" ")) {
                int eq = kv.indexOf('=');
                if (eq > 0) {
                    f.put(kv.substring(0, eq), kv.substring(eq + 1));
                }
            }
            if (!"DESTROY".equals(f.get("kind")) || !"6".equals(f.get("proto"))) {
                continue;
            }
            String[] cto = f.get("cto").split("/");
            String[] ctr = f.get("ctr").split("/");
            out.put(
                    Integer.parseInt(f.get("osport")),
                    new Destroy(
                            Long.parseLong(f.get("id")),
                            f.get("osrc") + ":" + f.get("osport"),
                            f.get("odst") + ":" + f.get("odport"),
                            f.get("rsrc") + ":" + f.get("rsport"),
                            f.get("rdst") + ":" + f.get("rdport"),
                            Long.parseLong(cto[0]),
                            Long.parseLong(cto[1]),
                            Long.parseLong(ctr[0]),
                            Long.parseLong(ctr[1]),
                            Long.parseLong(f.get("tstart")),
                            Long.parseLong(f.get("tstop"))));
        }
        return out;
    }

    /**
     * Both captures as agents publish them, minus packets removed from c0's: in connection k (by
     * client port order) every (3 + k)-th packet without SYN/FIN/RST of each direction, from
     * connection 1 on (connection 0 stays whole). {@code dropped} gets the counts.
     */
    private static void publishPackets(String topic, Map<String, Long> dropped) {
        DecodedPacket scratch = new DecodedPacket();
        List<PacketEvent> all = new ArrayList<>();
        List<PacketEvent> c0 = CaptureFixtures.packets("join/client.pcap", CLIENT_SIDE);
        List<Integer> ports = c0.stream()
                .map(p -> p.getDstPort() == 8080 ? p.getSrcPort() : p.getDstPort())
                .distinct()
                .sorted()
                .toList();
        Map<String, Integer> seen = new HashMap<>();
        for (PacketEvent p : c0) {
            boolean c2s = p.getDstPort() == 8080;
            int port = c2s ? p.getSrcPort() : p.getDstPort();
            int k = ports.indexOf(port);
            boolean control = (p.getTcpFlags() & (DecodedPacket.SYN | DecodedPacket.FIN | DecodedPacket.RST)) != 0;
            String dir = port + (c2s ? " c2s" : " s2c");
            if (k > 0 && !control && seen.merge(dir, 1, Integer::sum) % (3 + k) == 0) {
                dropped.merge(dir, 1L, Long::sum);
                continue;
            }
            all.add(p);
        }
        all.addAll(CaptureFixtures.packets("join/server.pcap", SERVER_SIDE));
        try (KafkaProducer<byte[], byte[]> producer = KAFKA.newProducer()) {
            for (PacketEvent p : all) {
                PacketEvents.fromAvro(p, scratch);
                String key = PacketEvents.flowKey(PacketEvents.vantagePoint(p.getVantage()), scratch);
                producer.send(new ProducerRecord<>(
                        topic, key.getBytes(UTF_8), p.toByteBuffer().array()));
            }
            producer.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The recorded ctnetlink messages as the raw agent publishes them (key = original tuple). */
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
