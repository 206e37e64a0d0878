package io.flowtrace.jobs;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.flowtrace.avro.FlowRecord;
import io.flowtrace.avro.PacketEvent;
import io.flowtrace.avro.SackBlock;
import io.flowtrace.avro.Vantage;
import io.flowtrace.avro.mapping.FlowRecords;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.jobs.config.JobConfig;
import io.flowtrace.jobs.config.JobOption;
import io.flowtrace.jobs.input.InputSources;
import io.flowtrace.jobs.output.JobSinks;
import io.flowtrace.jobs.output.PostgresSinks;
import io.flowtrace.testkit.KafkaBroker;
import io.flowtrace.testkit.PipelineServices;
import io.flowtrace.testkit.Postgres;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The whole job on real parts: two committed real captures and 21 malformed records on a real
 * KRaft broker, the job on a MiniCluster (parallelism 2, heap state), PostgreSQL and Kafka sinks.
 * The truth is core's offline pipeline over the same captures, i.e. {@code flowtrace analyze --json}.
 */
class FlowtraceJobITCase {
    private static final Logger LOG = LoggerFactory.getLogger(FlowtraceJobITCase.class);
    private static final int PARALLELISM = 2;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Map<String, Vantage> CAPTURES = new LinkedHashMap<>();

    static {
        CAPTURES.put("tcp/cubic-loss.sender.pcap.gz", new Vantage("itcase-cubic", "eth0"));
        CAPTURES.put("decoding/tcp4-sack.pcap", new Vantage("itcase-sack", "eth0"));
    }

    @RegisterExtension
    static final PipelineServices SERVICES = PipelineServices.withSlots(PARALLELISM);

    static final KafkaBroker KAFKA = SERVICES.kafka();
    static final Postgres POSTGRES = SERVICES.postgres();

    @Test
    void streamsRealCapturesIntoTheSameFlowsAsTheOfflineAnalysis(@TempDir Path checkpoints) throws Exception {
        JobConfig config = JobConfig.of(jobOptions(checkpoints));
        for (JobOption topic : List.of(
                JobOption.PACKETS_TOPIC,
                JobOption.FLOWS_TOPIC,
                JobOption.TCP_EVENTS_TOPIC,
                JobOption.SERVICE_WINDOWS_TOPIC,
                JobOption.VANTAGE_WINDOWS_TOPIC,
                JobOption.DEAD_LETTERS_TOPIC)) {
            KAFKA.createTopic(config.get(topic), PARALLELISM);
        }
        Map<String, JsonNode> offline = new TreeMap<>();
        CAPTURES.forEach((capture, vantage) ->
                offline.putAll(CaptureFixtures.offlineReports(capture, PacketEvents.vantage(vantage))));
        int packets = publishCaptures(config.get(JobOption.PACKETS_TOPIC));
        List<String> malformedReasons = publishMalformed(config.get(JobOption.PACKETS_TOPIC));

        PostgresSinks.applySchema(config);
        PostgresSinks.applySchema(config); // idempotent: a restarted job applies it again
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(FlowtraceJob.flinkConfiguration(config));
        new FlowtraceJob(config, InputSources.packets(config), JobSinks.fromConfig(config)).build(env);
        long started = System.nanoTime();
        env.execute("flowtrace-itcase");
        LOG.info(
                "job over {} packets + {} malformed records finished in {} ms",
                packets,
                malformedReasons.size(),
                (System.nanoTime() - started) / 1_000_000);

        assertFlowRowsEqualTheOfflineReports(offline);
        assertWindowsAddUp(offline.size());
        assertSlowStartExitsAddUp(offline);
        assertDeadLetters(malformedReasons.size(), config.get(JobOption.DEAD_LETTERS_TOPIC));
        assertCommittedFinalFlowRecords(offline, config.get(JobOption.FLOWS_TOPIC));
        assertThat(POSTGRES.query("SELECT count(*) AS n FROM tcp_events").get(0).get("n"))
                .isNotEqualTo(0L);
    }

    private void assertFlowRowsEqualTheOfflineReports(Map<String, JsonNode> offline) throws Exception {
        Map<String, JsonNode> streamed = new TreeMap<>();
        for (Map<String, Object> row : POSTGRES.query("SELECT report::text AS report, final FROM flow_summary")) {
            assertThat(row.get("final")).as("every flow row ends final").isEqualTo(true);
            JsonNode report = JSON.readTree((String) row.get("report"));
            streamed.put(CaptureFixtures.identity(report), report);
        }
        assertThat(streamed.keySet()).isEqualTo(offline.keySet());
        for (String flow : offline.keySet()) {
            assertThat(CaptureFixtures.flatten(streamed.get(flow)))
                    .as("report of %s", flow)
                    .isEqualTo(CaptureFixtures.flatten(offline.get(flow)));
        }
    }

    private void assertWindowsAddUp(int flows) {
        for (Map<String, Object> row : POSTGRES.query(
                "SELECT window_size_ms, sum(connections) AS connections FROM service_windows GROUP BY window_size_ms")) {
            assertThat(((Number) row.get("connections")).longValue())
                    .as("connections in %s ms windows", row.get("window_size_ms"))
                    .isEqualTo(flows);
        }
        for (Map<String, Object> row : POSTGRES.query(
                "SELECT window_size_ms, sum(flows_ended) AS flows, sum(packets) AS packets FROM vantage_windows GROUP BY window_size_ms")) {
            assertThat(((Number) row.get("flows")).longValue()).isEqualTo(flows);
        }
        assertThat(POSTGRES.query("SELECT DISTINCT window_size_ms FROM service_windows ORDER BY 1"))
                .extracting(r -> r.get("window_size_ms"))
                .containsExactly(10_000L, 60_000L);
    }

    /** Every direction that left slow start offline is one exit in the service windows, premature ones too. */
    private void assertSlowStartExitsAddUp(Map<String, JsonNode> offline) {
        long exits = 0;
        long premature = 0;
        for (JsonNode flow : offline.values()) {
            for (String dir : List.of("c2s", "s2c")) {
                JsonNode ss = flow.get(dir).get("slow_start");
                if (ss.get("exit_cwnd_segments").asLong() > 0) {
                    exits++;
                    premature += ss.get("premature").asBoolean() ? 1 : 0;
                }
            }
        }
        assertThat(exits).as("the committed captures contain slow-start exits").isPositive();
        for (Map<String, Object> row : POSTGRES.query("SELECT window_size_ms, sum(slow_start_exits) AS exits,"
                + " sum(slow_start_premature) AS premature FROM service_windows GROUP BY window_size_ms")) {
            assertThat(((Number) row.get("exits")).longValue())
                    .as("exits in %s ms windows", row.get("window_size_ms"))
                    .isEqualTo(exits);
            assertThat(((Number) row.get("premature")).longValue()).isEqualTo(premature);
        }
    }

    private void assertDeadLetters(int malformed, String topic) {
        List<Map<String, Object>> rows = POSTGRES.query("SELECT stage, reason FROM dead_letters ORDER BY kafka_offset");
        assertThat(rows).hasSize(malformed);
        assertThat(rows).allSatisfy(r -> assertThat((String) r.get("reason")).isNotBlank());
        assertThat(rows).extracting(r -> r.get("stage")).containsOnly("DECODE", "VALIDATE");
        assertThat(rows).filteredOn(r -> r.get("stage").equals("VALIDATE")).hasSize(5);
        assertThat(KAFKA.readCommitted(topic)).hasSize(malformed);
    }

    private void assertCommittedFinalFlowRecords(Map<String, JsonNode> offline, String topic) {
        Map<String, FlowRecord> last = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : KAFKA.readCommitted(topic)) {
            FlowRecord record = decode(r.value());
            // One key per flow instance, so one partition: offset order is update order.
            assertThat(new String(r.key(), UTF_8)).isEqualTo(FlowRecords.identityKey(record.getFlow()));
            last.put(
                    PacketEvents.vantage(record.getFlow().getVantage()) + " "
                            + record.getFlow().getClient() + " "
                            + record.getFlow().getServer() + " "
                            + record.getFlow().getInstance(),
                    record);
        }
        assertThat(last.keySet()).isEqualTo(offline.keySet());
        last.forEach((flow, record) -> {
            JsonNode truth = offline.get(flow);
            assertThat(record.getEnd().name().toLowerCase())
                    .isEqualTo(truth.get("end").asText());
            assertThat(record.getC2s().getPackets())
                    .isEqualTo(truth.get("c2s").get("packets").asLong());
            assertThat(record.getS2c().getDataBytes())
                    .isEqualTo(truth.get("s2c").get("data_bytes").asLong());
        });
    }

    private static FlowRecord decode(byte[] value) {
        try {
            return FlowRecord.getDecoder().decode(value);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static Map<String, String> jobOptions(Path checkpoints) {
        return ItJobOptions.bounded(
                "itcase", KAFKA.bootstrapServers(), POSTGRES.jdbcUrl(), Postgres.USER, checkpoints, PARALLELISM);
    }

    /** Every TCP packet of the captures, keyed by canonical flow key as an agent publishes them. */
    private static int publishCaptures(String topic) {
        int sent = 0;
        DecodedPacket scratch = new DecodedPacket();
        try (KafkaProducer<byte[], byte[]> producer = KAFKA.newProducer()) {
            for (Map.Entry<String, Vantage> capture : CAPTURES.entrySet()) {
                for (PacketEvent p : CaptureFixtures.packets(capture.getKey(), capture.getValue())) {
                    PacketEvents.fromAvro(p, scratch);
                    String key = PacketEvents.flowKey(PacketEvents.vantagePoint(p.getVantage()), scratch);
                    producer.send(new ProducerRecord<>(
                            topic, key.getBytes(UTF_8), p.toByteBuffer().array()));
                    sent++;
                }
            }
            producer.flush();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return sent;
    }

    /** 16 records that do not decode and 5 that decode but violate the contract; returns what each one is. */
    private static List<String> publishMalformed(String topic) throws Exception {
        List<byte[]> values = new ArrayList<>();
        List<String> what = new ArrayList<>();
        Random random = new Random(6);
        for (int i = 0; i < 5; i++) {
            byte[] garbage = new byte[1 + random.nextInt(200)];
            random.nextBytes(garbage);
            values.add(garbage);
            what.add("random bytes");
        }
        byte[] valid = validPacket().build().toByteBuffer().array();
        for (int cut : new int[] {1, 9, 12, valid.length - 3}) {
            values.add(Arrays.copyOf(valid, cut));
            what.add("truncated at " + cut);
        }
        for (int i = 0; i < 3; i++) {
            byte[] wrongFingerprint = valid.clone();
            wrongFingerprint[2 + i] ^= 0x5a;
            values.add(wrongFingerprint);
            what.add("wrong fingerprint");
        }
        values.add("{\"capture_time_ns\": 1}".getBytes(UTF_8));
        what.add("JSON");
        values.add("not avro".getBytes(UTF_8));
        what.add("text");
        values.add(new byte[0]);
        what.add("empty");
        values.add(null);
        what.add("tombstone");
        values.add(validPacket().setIpVersion(5).build().toByteBuffer().array());
        what.add("ip version 5");
        values.add(validPacket().setSrcPort(70_000).build().toByteBuffer().array());
        what.add("port 70000");
        values.add(validPacket().setCaptureTimeNs(1_000L).build().toByteBuffer().array());
        what.add("capture time 1970");
        values.add(validPacket().setWindow(1 << 20).build().toByteBuffer().array());
        what.add("window over 16 bits");
        List<SackBlock> sacks = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            sacks.add(new SackBlock(1000L * i, 1000L * i + 500));
        }
        values.add(validPacket().setSackBlocks(sacks).build().toByteBuffer().array());
        what.add("5 SACK blocks");
        try (KafkaProducer<byte[], byte[]> producer = KAFKA.newProducer()) {
            for (int i = 0; i < values.size(); i++) {
                producer.send(new ProducerRecord<>(topic, ("malformed-" + i).getBytes(UTF_8), values.get(i)));
            }
            producer.flush();
        }
        return what;
    }

    private static PacketEvent.Builder validPacket() {
        return PacketEvent.newBuilder()
                .setCaptureTimeNs(1_796_000_000_000_000_000L)
                .setVantage(new Vantage("itcase-bad", "eth0"))
                .setIpVersion(4)
                .setSrcAddr(ByteBuffer.wrap(new byte[] {10, 9, 9, 1}))
                .setDstAddr(ByteBuffer.wrap(new byte[] {10, 9, 9, 2}))
                .setSrcPort(40_000)
                .setDstPort(443)
                .setTtl(64)
                .setIpTotalLength(40)
                .setTcpFlags(DecodedPacket.ACK)
                .setSeq(1)
                .setAck(1)
                .setWindow(100)
                .setCapturedLength(54)
                .setWireLength(54);
    }
}
