package io.flowtrace.jobs.hostile;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.flowtrace.avro.PacketEvent;
import io.flowtrace.avro.Vantage;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.jobs.CaptureFixtures;
import io.flowtrace.jobs.FlowtraceJob;
import io.flowtrace.jobs.ItJobOptions;
import io.flowtrace.jobs.JobTopics;
import io.flowtrace.jobs.config.JobConfig;
import io.flowtrace.jobs.config.JobOption;
import io.flowtrace.jobs.conntrack.ConntrackFixtures;
import io.flowtrace.jobs.input.InputSources;
import io.flowtrace.jobs.output.JobSinks;
import io.flowtrace.jobs.output.PostgresSinks;
import io.flowtrace.testkit.KafkaBroker;
import io.flowtrace.testkit.PipelineServices;
import io.flowtrace.testkit.Postgres;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
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
 * 10 000 malformed records of every kind {@link HostilePackets} makes, interleaved at random with
 * the packets of a real capture on a real KRaft broker, and 1 000 of {@link HostileConntrack}'s kinds
 * between the real ctnetlink events of testdata/conntrack/v4_plain on the conntrack topic, through the whole job (MiniCluster p=2,
 * restart attempts 0, so any failure fails the test) into real PostgreSQL and Kafka. Every bad record
 * is a dead letter of its stage with a reason matching its kind (counted per kind against the counts
 * generated), and the capture's flows equal the offline analysis ({@code flowtrace analyze --json}).
 */
class HostileInputITCase {
    private static final Logger LOG = LoggerFactory.getLogger(HostileInputITCase.class);
    private static final int PARALLELISM = 2;
    private static final int MALFORMED = 10_000;
    private static final int CONNTRACK_MALFORMED_PER_KIND = 50;
    private static final int CONNTRACK_MALFORMED =
            CONNTRACK_MALFORMED_PER_KIND * HostileConntrack.kinds().size();
    private static final Vantage CONNTRACK_VANTAGE = new Vantage("hostile-itcase", "conntrack");
    private static final String CAPTURE = "tcp/short-conns.sender.pcap.gz";
    private static final Vantage VANTAGE = new Vantage("hostile-itcase", "eth0");
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final PipelineServices SERVICES = PipelineServices.withSlots(PARALLELISM);

    static final KafkaBroker KAFKA = SERVICES.kafka();
    static final Postgres POSTGRES = SERVICES.postgres();

    @Test
    void deadLettersEveryMalformedRecordWithItsReasonAndAnalysesTheRealCaptureAroundThem(@TempDir Path checkpoints)
            throws Exception {
        JobConfig config = JobConfig.of(jobOptions(checkpoints));
        JobTopics.create(KAFKA, PARALLELISM, config);
        Map<String, JsonNode> offline = CaptureFixtures.offlineReports(CAPTURE, PacketEvents.vantage(VANTAGE));
        List<HostilePackets.Bad> bad = HostilePackets.generate(MALFORMED, 20261130L);
        Map<String, Integer> generated = new TreeMap<>();
        bad.forEach(b -> generated.merge(b.kind().name(), 1, Integer::sum));
        int good = publishInterleaved(config.get(JobOption.PACKETS_TOPIC), bad);
        Map<String, Integer> conntrackGenerated = new TreeMap<>();
        int goodConntrack = publishConntrack(config.get(JobOption.CONNTRACK_TOPIC), conntrackGenerated);

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
        env.execute("flowtrace-hostile-itcase"); // restart-attempts 0: a crash of any operator fails here
        LOG.info(
                "job over {} good packets and {} malformed records finished in {} ms",
                good,
                MALFORMED,
                (System.nanoTime() - started) / 1_000_000);

        assertDeadLettersPerKind(config.get(JobOption.PACKETS_TOPIC), HostilePackets.kinds(), generated);
        assertDeadLettersPerKind(config.get(JobOption.CONNTRACK_TOPIC), HostileConntrack.kinds(), conntrackGenerated);
        assertThat(KAFKA.readCommitted(config.get(JobOption.DEAD_LETTERS_TOPIC)))
                .hasSize(MALFORMED + CONNTRACK_MALFORMED);
        // the recorded events around the bad ones all count: one row per second window, events = messages
        assertThat(POSTGRES.query("SELECT sum(events) AS n FROM conntrack_budgets WHERE window_size_ms = 1000")
                        .get(0)
                        .get("n"))
                .isEqualTo(java.math.BigDecimal.valueOf(goodConntrack));
        assertFlowRowsEqualTheOfflineReports(offline);
    }

    private static void assertDeadLettersPerKind(
            String topic, List<HostilePackets.Kind> all, Map<String, Integer> generated) {
        Map<String, HostilePackets.Kind> kinds = new HashMap<>();
        all.forEach(k -> kinds.put(k.name(), k));
        List<Map<String, Object>> rows = POSTGRES.query(
                "SELECT stage, reason, convert_from(record_key, 'UTF8') AS k FROM dead_letters WHERE topic = ?", topic);
        assertThat(rows)
                .hasSize(generated.values().stream().mapToInt(Integer::intValue).sum());
        Map<String, Integer> stored = new TreeMap<>();
        Map<String, Integer> byReason = new TreeMap<>();
        for (Map<String, Object> row : rows) {
            String kindName = ((String) row.get("k")).split("\\|")[1];
            HostilePackets.Kind kind = kinds.get(kindName);
            assertThat(kind).as("dead letter key %s", row.get("k")).isNotNull();
            assertThat(row.get("stage")).as(kindName).isEqualTo(kind.stage());
            assertThat((String) row.get("reason")).as(kindName).matches(kind.reason());
            stored.merge(kindName, 1, Integer::sum);
            byReason.merge(
                    row.get("stage") + ": " + ((String) row.get("reason")).replaceAll("(?i)0x[0-9a-f]+|-?\\d+", "N"),
                    1,
                    Integer::sum);
        }
        assertThat(stored).isEqualTo(generated);
        StringBuilder table = new StringBuilder();
        stored.forEach((k, n) ->
                table.append(String.format("%n  %5d  %-8s %s", n, kinds.get(k).stage(), k)));
        LOG.info("dead letters of {} per kind:{}", topic, table);
        StringBuilder reasons = new StringBuilder();
        byReason.forEach((r, n) ->
                reasons.append(String.format("%n  %5d  %s", n, r.length() > 140 ? r.substring(0, 140) : r)));
        LOG.info("dead letters per reason (numbers as N): {}", reasons);
    }

    private static void assertFlowRowsEqualTheOfflineReports(Map<String, JsonNode> offline) throws Exception {
        Map<String, JsonNode> streamed = new TreeMap<>();
        for (Map<String, Object> row : POSTGRES.query("SELECT report::text AS report, final FROM flow_summary")) {
            assertThat(row.get("final")).isEqualTo(true);
            JsonNode report = JSON.readTree((String) row.get("report"));
            streamed.put(CaptureFixtures.identity(report), report);
        }
        assertThat(streamed.keySet()).as("no malformed record became a flow").isEqualTo(offline.keySet());
        for (String flow : offline.keySet()) {
            assertThat(CaptureFixtures.flatten(streamed.get(flow)))
                    .as("report of %s", flow)
                    .isEqualTo(CaptureFixtures.flatten(offline.get(flow)));
        }
    }

    /** The capture's packets in order, with the bad records dropped in between at random places. */
    private static int publishInterleaved(String topic, List<HostilePackets.Bad> bad) {
        List<PacketEvent> packets = CaptureFixtures.packets(CAPTURE, VANTAGE);
        Random random = new Random(7);
        DecodedPacket scratch = new DecodedPacket();
        int next = 0;
        try (KafkaProducer<byte[], byte[]> producer = KAFKA.newProducer()) {
            for (int i = 0; i < packets.size(); i++) {
                // spread the bad records evenly in expectation over the capture
                int due = (int) ((long) bad.size() * (i + 1) / packets.size());
                while (next < due) {
                    HostilePackets.Bad b = bad.get(next);
                    String key = "hostile|" + b.kind().name() + "|" + next++;
                    producer.send(
                            new ProducerRecord<>(topic, random.nextInt(PARALLELISM), key.getBytes(UTF_8), b.value()));
                }
                PacketEvent p = packets.get(i);
                PacketEvents.fromAvro(p, scratch);
                String key = PacketEvents.flowKey(PacketEvents.vantagePoint(p.getVantage()), scratch);
                producer.send(new ProducerRecord<>(topic, key.getBytes(UTF_8), HostilePackets.encode(p)));
            }
            producer.flush();
        }
        assertThat(next).isEqualTo(bad.size());
        return packets.size();
    }

    /**
     * The real ctnetlink messages of testdata/conntrack/v4_plain as the raw agent publishes them, with
     * the conntrack kinds' bad records in between; returns the number of good events.
     */
    private static int publishConntrack(String topic, Map<String, Integer> generated) throws Exception {
        Random random = new Random(11);
        List<HostilePackets.Kind> kinds = HostileConntrack.kinds();
        List<byte[]> messages = ConntrackFixtures.messages("v4_plain");
        int bad = 0;
        try (KafkaProducer<byte[], byte[]> producer = KAFKA.newProducer()) {
            for (int m = 0; m < messages.size(); m++) {
                io.flowtrace.core.conntrack.ConntrackMessage core = ConntrackFixtures.parse(messages.get(m));
                io.flowtrace.avro.ConntrackEvent avro =
                        ConntrackFixtures.toAvro(core, CONNTRACK_VANTAGE, io.flowtrace.avro.ConntrackSource.NETLINK);
                producer.send(new ProducerRecord<>(
                        topic,
                        random.nextInt(PARALLELISM),
                        ("good|" + m).getBytes(UTF_8),
                        avro.toByteBuffer().array()));
                int due = (int) ((long) CONNTRACK_MALFORMED * (m + 1) / messages.size());
                while (bad < due) {
                    HostilePackets.Kind kind = kinds.get(bad % kinds.size());
                    producer.send(new ProducerRecord<>(
                            topic,
                            random.nextInt(PARALLELISM),
                            HostileConntrack.key(kind.name(), bad),
                            kind.make().apply(random)));
                    generated.merge(kind.name(), 1, Integer::sum);
                    bad++;
                }
            }
            producer.flush();
        }
        return messages.size();
    }

    private static Map<String, String> jobOptions(Path checkpoints) {
        Map<String, String> o = ItJobOptions.of(
                        "hostile",
                        KAFKA.bootstrapServers(),
                        POSTGRES.jdbcUrl(),
                        Postgres.USER,
                        checkpoints,
                        PARALLELISM)
                .with(JobOption.GROUP_ID, "hostile-itcase")
                .with(JobOption.TRANSACTIONAL_ID_PREFIX, "hostile-itcase")
                .with(JobOption.CHECKPOINT_INTERVAL_MS, 1000)
                .toMap();
        return o;
    }
}
