package io.flowtrace.jobs;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.flowtrace.avro.FlowRecord;
import io.flowtrace.avro.PacketEvent;
import io.flowtrace.avro.ServiceWindow;
import io.flowtrace.avro.TcpEvent;
import io.flowtrace.avro.Vantage;
import io.flowtrace.avro.VantageWindow;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.jobs.config.JobConfig;
import io.flowtrace.jobs.config.JobOption;
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
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import org.apache.avro.message.BinaryMessageDecoder;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Same answers whatever the batching: the committed captures are published once per way an agent
 * may publish them — single PacketEvents, PacketBatches of 1, of up to 8 packets with a 10 ms
 * linger, of up to 512 with a 100 ms linger, and batches and events mixed — each way as its own
 * vantage point, all interleaved in capture-time order on ONE topic (so the topic mixes both
 * contracts, partition by partition). One job run. Every sink table and output topic, per vantage,
 * must be identical across the ways (with the vantage name normalised), and every flow row must
 * equal {@code flowtrace analyze --json} (core's offline pipeline) field by field.
 */
class BatchEquivalenceITCase {
    private static final int PARALLELISM = 2;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> CAPTURES =
            List.of("tcp/cubic-loss.sender.pcap.gz", "join/client.pcap", "decoding/tcp6-sack.pcap");
    /** agent_id of each way of publishing; the normalised name replaces it before comparing. */
    private static final Map<String, Way> WAYS = new LinkedHashMap<>();

    private static final String SAME = "eq-agent";

    static {
        WAYS.put("eq-events", new Way(1, 0, false));
        WAYS.put("eq-batch1", new Way(1, 0, true));
        WAYS.put("eq-batch8", new Way(8, 10_000_000L, true));
        WAYS.put("eq-batch512", new Way(512, 100_000_000L, true));
        WAYS.put("eq-mixed", new Way(4, 20_000_000L, true));
    }

    /** Batches of at most {@code size} packets and {@code lingerNs} of capture time; events when not {@code batches}. */
    record Way(int size, long lingerNs, boolean batches) {}

    @RegisterExtension
    static final PipelineServices SERVICES = PipelineServices.withSlots(PARALLELISM);

    static final KafkaBroker KAFKA = SERVICES.kafka();
    static final Postgres POSTGRES = SERVICES.postgres();

    @Test
    void everyWayOfBatchingGivesTheSameTablesAndTopicsAsSingleEventsAndAsAnalyze(@TempDir Path checkpoints)
            throws Exception {
        JobConfig config = JobConfig.of(ItJobOptions.bounded(
                "equiv", KAFKA.bootstrapServers(), POSTGRES.jdbcUrl(), Postgres.USER, checkpoints, PARALLELISM));
        for (JobOption topic : List.of(
                JobOption.PACKETS_TOPIC,
                JobOption.FLOWS_TOPIC,
                JobOption.TCP_EVENTS_TOPIC,
                JobOption.SERVICE_WINDOWS_TOPIC,
                JobOption.VANTAGE_WINDOWS_TOPIC,
                JobOption.DEAD_LETTERS_TOPIC)) {
            KAFKA.createTopic(config.get(topic), PARALLELISM);
        }
        int[] counts = publish(config.get(JobOption.PACKETS_TOPIC));
        assertThat(counts[0]).as("PacketEvent records").isPositive();
        assertThat(counts[1]).as("PacketBatch records").isPositive();

        PostgresSinks.applySchema(config);
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(FlowtraceJob.flinkConfiguration(config));
        new FlowtraceJob(config, InputSources.packets(config), JobSinks.fromConfig(config)).build(env);
        env.execute("flowtrace-batch-equivalence");

        for (String agent : WAYS.keySet()) {
            assertFlowRowsEqualAnalyze(agent);
        }
        for (String table : List.of("flow_summary", "tcp_events", "service_windows", "vantage_windows")) {
            Map<String, List<String>> rows = new LinkedHashMap<>();
            for (String agent : WAYS.keySet()) {
                rows.put(agent, tableRows(table, agent));
            }
            assertThat(rows.get("eq-events")).as("%s has rows", table).isNotEmpty();
            rows.forEach(
                    (agent, r) -> assertThat(r).as("%s of %s", table, agent).isEqualTo(rows.get("eq-events")));
        }
        assertThat(POSTGRES.query("SELECT count(*) AS n FROM dead_letters")
                        .get(0)
                        .get("n"))
                .isEqualTo(0L);
        assertThat(KAFKA.readCommitted(config.get(JobOption.DEAD_LETTERS_TOPIC)))
                .isEmpty();

        assertTopicsAgree(config);
    }

    private static void assertFlowRowsEqualAnalyze(String agent) throws Exception {
        Map<String, JsonNode> offline = new TreeMap<>();
        for (String capture : CAPTURES) {
            offline.putAll(CaptureFixtures.offlineReports(capture, PacketEvents.vantage(vantage(agent, capture))));
        }
        Map<String, JsonNode> streamed = new TreeMap<>();
        for (Map<String, Object> row : POSTGRES.query(
                "SELECT report::text AS report, final FROM flow_summary WHERE vantage LIKE ?", agent + "/%")) {
            assertThat(row.get("final")).isEqualTo(true);
            JsonNode report = JSON.readTree((String) row.get("report"));
            streamed.put(CaptureFixtures.identity(report), report);
        }
        assertThat(streamed.keySet()).as("flows of %s", agent).isEqualTo(offline.keySet());
        for (String flow : offline.keySet()) {
            assertThat(CaptureFixtures.flatten(streamed.get(flow)))
                    .as("report of %s", flow)
                    .isEqualTo(CaptureFixtures.flatten(offline.get(flow)));
        }
    }

    /** Every column of every row of the way's vantages, the agent name normalised, sorted. */
    private static List<String> tableRows(String table, String agent) {
        List<String> rows = new ArrayList<>();
        for (Map<String, Object> row :
                POSTGRES.query("SELECT * FROM " + table + " WHERE vantage LIKE ?", agent + "/%")) {
            rows.add(roundDoubles(new TreeMap<>(row).toString().replace(agent, SAME)));
        }
        rows.sort(Comparator.naturalOrder());
        return rows;
    }

    private static void assertTopicsAgree(JobConfig config) {
        // flows: the last version of every flow agrees; record_time_us never goes back within a flow
        Map<String, Map<String, String>> lastFlows = new HashMap<>();
        Map<String, Long> recordTime = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : KAFKA.readCommitted(config.get(JobOption.FLOWS_TOPIC))) {
            FlowRecord f = decode(FlowRecord.getDecoder(), r.value());
            String agent = f.getFlow().getVantage().getAgentId();
            String flow = new String(r.key(), UTF_8);
            Long before = recordTime.put(flow, f.getRecordTimeUs());
            assertThat(f.getRecordTimeUs())
                    .as("record_time_us of %s", flow)
                    .isGreaterThanOrEqualTo(before == null ? 0 : before);
            lastFlows
                    .computeIfAbsent(agent, a -> new TreeMap<>())
                    .put(flow.replace(agent, SAME), f.toString().replace(agent, SAME));
        }
        assertAllWaysEqual("flows topic", lastFlows);
        assertAllWaysEqual("tcp-events topic", topicByAgent(config.get(JobOption.TCP_EVENTS_TOPIC), v -> {
            TcpEvent e = decode(TcpEvent.getDecoder(), v);
            return Map.entry(e.getFlow().getVantage().getAgentId(), e.toString());
        }));
        assertAllWaysEqual("service-windows topic", topicByAgent(config.get(JobOption.SERVICE_WINDOWS_TOPIC), v -> {
            ServiceWindow w = decode(ServiceWindow.getDecoder(), v);
            return Map.entry(w.getVantage().getAgentId(), w.toString());
        }));
        assertAllWaysEqual("vantage-windows topic", topicByAgent(config.get(JobOption.VANTAGE_WINDOWS_TOPIC), v -> {
            VantageWindow w = decode(VantageWindow.getDecoder(), v);
            return Map.entry(w.getVantage().getAgentId(), w.toString());
        }));
    }

    /** Each agent's records of a topic, agent name normalised, as a sorted multiset (keyed by text, counted). */
    private static Map<String, Map<String, String>> topicByAgent(
            String topic, Function<byte[], Map.Entry<String, String>> read) {
        Map<String, Map<String, String>> out = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : KAFKA.readCommitted(topic)) {
            Map.Entry<String, String> e = read.apply(r.value());
            String text = roundDoubles(e.getValue().replace(e.getKey(), SAME));
            out.computeIfAbsent(e.getKey(), a -> new TreeMap<>())
                    .merge(text, "1", (a, b) -> Integer.toString(Integer.parseInt(a) + 1));
        }
        return out;
    }

    /**
     * Fractional numbers to 12 significant digits: a window's means and deviations are sums over
     * the flows in it, whose order of arrival at the window (from parallel flow subtasks) is not
     * fixed, so they may differ in the last bits between any two runs, batched or not.
     */
    static String roundDoubles(String text) {
        java.util.regex.Matcher m =
                java.util.regex.Pattern.compile("-?\\d+\\.\\d+(E-?\\d+)?").matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(
                    out,
                    new java.math.BigDecimal(m.group())
                            .round(new java.math.MathContext(12))
                            .toString());
        }
        m.appendTail(out);
        return out.toString();
    }

    private static void assertAllWaysEqual(String what, Map<String, Map<String, String>> byAgent) {
        assertThat(byAgent.keySet()).as(what).containsExactlyInAnyOrderElementsOf(WAYS.keySet());
        assertThat(byAgent.get("eq-events")).as(what).isNotEmpty();
        for (String agent : WAYS.keySet()) {
            assertThat(byAgent.get(agent)).as("%s of %s", what, agent).isEqualTo(byAgent.get("eq-events"));
        }
    }

    private static <T> T decode(BinaryMessageDecoder<T> decoder, byte[] value) {
        try {
            return decoder.decode(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Vantage vantage(String agent, String capture) {
        // one interface name per capture, so each capture's flows are apart within a way
        return new Vantage(agent, "if" + CAPTURES.indexOf(capture));
    }

    /**
     * Every way's records of every capture, merged by event time (a batch's first packet's, an
     * event's own) as agents writing concurrently would interleave them. Returns {events, batches}.
     */
    private static int[] publish(String topic) {
        record Out(long timeMs, byte[] key, byte[] value, boolean batch) {}
        List<Out> all = new ArrayList<>();
        for (Map.Entry<String, Way> way : WAYS.entrySet()) {
            for (String capture : CAPTURES) {
                List<PacketEvent> packets = CaptureFixtures.packets(capture, vantage(way.getKey(), capture));
                if (!way.getValue().batches()) {
                    for (PacketEvent p : packets) {
                        FlowBatch b = FlowBatches.ofEvent(p);
                        all.add(new Out(b.timeMs, b.recordKey, b.value, false));
                    }
                    continue;
                }
                int n = 0;
                for (List<PacketEvent> cut : FlowBatches.cut(
                        packets, way.getValue().size(), way.getValue().lingerNs())) {
                    // the mixed way sends every third batch as single events (an agent with --batch off on the same
                    // topic)
                    if (way.getKey().equals("eq-mixed") && n++ % 3 == 0) {
                        for (PacketEvent p : cut) {
                            FlowBatch b = FlowBatches.ofEvent(p);
                            all.add(new Out(b.timeMs, b.recordKey, b.value, false));
                        }
                    } else {
                        FlowBatch b = FlowBatches.ofBatch(cut);
                        all.add(new Out(b.timeMs, b.recordKey, b.value, true));
                    }
                }
            }
        }
        all.sort(Comparator.comparingLong(Out::timeMs)); // stable: a flow's records keep their order
        int[] counts = new int[2];
        try (KafkaProducer<byte[], byte[]> producer = KAFKA.newProducer()) {
            for (Out o : all) {
                producer.send(new ProducerRecord<>(topic, o.key(), o.value()));
                counts[o.batch() ? 1 : 0]++;
            }
            producer.flush();
        }
        return counts;
    }
}
