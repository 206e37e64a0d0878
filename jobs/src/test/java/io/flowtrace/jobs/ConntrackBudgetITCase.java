package io.flowtrace.jobs;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.avro.ConntrackBudget;
import io.flowtrace.avro.ConntrackLoss;
import io.flowtrace.avro.ConntrackSource;
import io.flowtrace.avro.Vantage;
import io.flowtrace.core.conntrack.BudgetConfig;
import io.flowtrace.core.conntrack.BudgetReport;
import io.flowtrace.core.conntrack.ConntrackMessage;
import io.flowtrace.core.conntrack.KernelFeatures;
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
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
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
 * Conntrack budgets end to end on real parts: the real ctnetlink messages of
 * testdata/conntrack/burst.nl.bin and v4_plain.nl.bin published as Avro ConntrackEvents (the agent's
 * mapping), a ConntrackLoss and malformed records on the same topic of a real KRaft broker, the job
 * on a MiniCluster (parallelism 2, bounded), real PostgreSQL and Kafka sinks.
 *
 * <p>Two kinds of truth. Independent: per window, the event count and the exact message bytes equal
 * what the recordings' length prefixes say (the prefix is the real nlmsg_len the kernel sent), and
 * the burst's buffer need equals the receive-queue memory the kernel reported (burst.facts). Consistency
 * only: estimated bytes, truesize, peaks, buffer needed and predicted ENOBUFS equal core's
 * EventSizeBudget fed with core's parsed events directly (no Avro, no job): they prove the job
 * computes what core computes, not that core is right (core's own tests do that against the kernel).
 */
class ConntrackBudgetITCase {
    /**
     * The window lengths: the short window this test asks for (100 ms: the burst lasts 0.43 s), then
     * the two every job computes.
     */
    private static final long[] WINDOW_MS = {100, 1000, 60_000};

    private static final Logger LOG = LoggerFactory.getLogger(ConntrackBudgetITCase.class);
    private static final int PARALLELISM = 2;
    private static final long DRAIN_MS = 1000;
    private static final Map<String, Vantage> CASES = new LinkedHashMap<>();

    static {
        // In recording order (v4_plain was recorded ~1 min before the burst), as live agents publish:
        // events behind a partition's watermark (2 s out-of-orderness) would be late for the windows.
        CASES.put("v4_plain", new Vantage("itct-plain", "ct"));
        CASES.put("burst", new Vantage("itct-burst", "ct"));
    }

    @RegisterExtension
    static final PipelineServices SERVICES = PipelineServices.withSlots(PARALLELISM);

    static final KafkaBroker KAFKA = SERVICES.kafka();
    static final Postgres POSTGRES = SERVICES.postgres();

    /** One expected row: what the recordings say per vantage, window size and start. */
    private static final class Expected {
        long events;
        long bytes;
        final List<ConntrackMessage> core = new ArrayList<>();
    }

    @Test
    void budgetsOfRealRecordedEventsAddUpAndMatchCore(@TempDir Path checkpoints) throws Exception {
        JobConfig config = JobConfig.of(jobOptions(checkpoints));
        JobTopics.create(KAFKA, PARALLELISM, config);

        Map<String, Expected> expected = new TreeMap<>();
        long burstFirstNs = publishRecordings(config.get(JobOption.CONNTRACK_TOPIC), expected);
        // One real-format loss report inside the burst's first second: ENOBUFS observed = 1 there.
        ConntrackLoss loss = ConntrackLoss.newBuilder()
                .setTimeNs(burstFirstNs)
                .setVantage(CASES.get("burst"))
                .setEnobufsCount(1)
                .setReceiveBufferBytes(16384)
                .setSource(ConntrackSource.NETLINK)
                .build();
        List<String> malformed = publishMalformed(config.get(JobOption.CONNTRACK_TOPIC), loss);

        PostgresSinks.applySchema(config);
        PostgresSinks.applySchema(config); // V1 + V2 are idempotent
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(FlowtraceJob.flinkConfiguration(config));
        new FlowtraceJob(
                        config,
                        InputSources.packets(config),
                        InputSources.conntrack(config),
                        JobSinks.fromConfig(config))
                .build(env);
        long started = System.nanoTime();
        env.execute("conntrack-budget-itcase");
        LOG.info("conntrack job finished in {} ms", (System.nanoTime() - started) / 1_000_000);

        List<Map<String, Object>> rows = POSTGRES.query("""
                SELECT vantage, window_size_ms, (extract(epoch FROM window_start) * 1000)::bigint AS start_ms,
                       events, events_new, events_update, events_destroy, exact_bytes, estimated_bytes,
                       truesize_bytes, peak_burst_10ms, peak_burst_100ms, buffer_needed_bytes,
                       buffer_configured_bytes, buffer_effective_bytes, enobufs_predicted, predicted_drops,
                       enobufs_observed, waste_ratio, drain_latency_ms, enobufs_risk
                FROM conntrack_budgets""");
        Map<String, Map<String, Object>> byKey = new TreeMap<>();
        for (Map<String, Object> r : rows) {
            byKey.put(key((String) r.get("vantage"), (Long) r.get("window_size_ms"), (Long) r.get("start_ms")), r);
        }
        assertThat(byKey.keySet()).isEqualTo(expected.keySet());
        KernelFeatures features = KernelFeatures.stock();
        for (Map.Entry<String, Expected> e : expected.entrySet()) {
            Map<String, Object> row = byKey.get(e.getKey());
            Expected x = e.getValue();
            // Independent truth: the recordings' length prefixes.
            assertThat(row.get("events")).as("events in %s", e.getKey()).isEqualTo(x.events);
            assertThat(row.get("exact_bytes"))
                    .as("exact bytes in %s", e.getKey())
                    .isEqualTo(x.bytes);

            // Consistency with core: its EventSizeBudget over core's own parse of the same messages.
            long windowMs = (Long) row.get("window_size_ms");
            String[] parts = e.getKey().split(" ");
            BudgetConfig bc = new BudgetConfig(
                    windowMs * 1_000_000L, DRAIN_MS * 1_000_000L, BudgetConfig.CONNTRACKD_DEFAULT_RCVBUF, features);
            io.flowtrace.core.conntrack.EventSizeBudget core = new io.flowtrace.core.conntrack.EventSizeBudget(
                    parts[0], Long.parseLong(parts[2]) * 1_000_000L, bc);
            x.core.stream()
                    .sorted(Comparator.comparingLong(ConntrackMessage::timeNanos)
                            .thenComparing(ConntrackMessage::type)
                            .thenComparingInt(ConntrackMessage::wireSize))
                    .forEach(core::add);
            BudgetReport r = core.report();
            assertThat(row.get("events_new")).isEqualTo(r.newEvents());
            assertThat(row.get("events_update")).isEqualTo(r.updateEvents());
            assertThat(row.get("events_destroy")).isEqualTo(r.destroyEvents());
            assertThat((Long) row.get("truesize_bytes"))
                    .isEqualTo(Math.round(r.truesizeBytesPerSecond() * windowMs / 1000.0));
            assertThat((Double) row.get("waste_ratio")).isEqualTo(r.wasteRatio());
            assertThat(row.get("peak_burst_10ms")).isEqualTo(r.peakTruesize10ms());
            assertThat(row.get("peak_burst_100ms")).isEqualTo(r.peakTruesize100ms());
            assertThat(row.get("buffer_needed_bytes"))
                    .as("buffer needed in %s", e.getKey())
                    .isEqualTo(r.bufferNeeded());
            assertThat(row.get("buffer_effective_bytes")).isEqualTo(r.effectiveRcvbuf());
            assertThat(row.get("enobufs_predicted")).isEqualTo(r.predictedEnobufs());
            assertThat(row.get("predicted_drops")).isEqualTo(r.predictedDrops());
            assertThat(row.get("enobufs_risk")).isEqualTo(r.risk().name());
            assertThat(row.get("buffer_configured_bytes")).isEqualTo((long) BudgetConfig.CONNTRACKD_DEFAULT_RCVBUF);
            assertThat(row.get("drain_latency_ms")).isEqualTo((double) DRAIN_MS);
            boolean lossWindow = parts[0].equals("itct-burst/ct")
                    && Math.floorDiv(burstFirstNs / 1_000_000L, windowMs) * windowMs == Long.parseLong(parts[2]);
            assertThat(row.get("enobufs_observed"))
                    .as("observed in %s", e.getKey())
                    .isEqualTo(lossWindow ? 1L : 0L);
        }
        // Every recorded event is in exactly one window of each size.
        for (long size : WINDOW_MS) {
            assertThat(rows.stream()
                            .filter(r -> r.get("window_size_ms").equals(size))
                            .mapToLong(r -> (Long) r.get("events"))
                            .sum())
                    .isEqualTo(449L); // 400 burst + 49 v4_plain messages
        }
        assertBurstMatchesTheKernel(byKey);

        List<Map<String, Object>> dead =
                POSTGRES.query("SELECT stage, reason FROM dead_letters ORDER BY kafka_partition, kafka_offset");
        assertThat(dead).as("dead letters of %s", malformed).hasSize(malformed.size());
        assertThat(dead).allSatisfy(r -> assertThat((String) r.get("reason")).isNotBlank());
        assertThat(dead).filteredOn(r -> r.get("stage").equals("VALIDATE")).hasSize(5);
        assertThat(dead).filteredOn(r -> r.get("stage").equals("DECODE")).hasSize(malformed.size() - 5);
        assertThat(KAFKA.readCommitted(config.get(JobOption.DEAD_LETTERS_TOPIC)))
                .hasSize(malformed.size());

        List<ConsumerRecord<byte[], byte[]>> budgets =
                KAFKA.readCommitted(config.get(JobOption.CONNTRACK_BUDGETS_TOPIC));
        assertThat(budgets).hasSize(rows.size());
        for (ConsumerRecord<byte[], byte[]> rec : budgets) {
            ConntrackBudget b = ConntrackBudget.getDecoder().decode(rec.value());
            String vantage = b.getVantage().getAgentId() + "/" + b.getVantage().getInterfaceName();
            assertThat(new String(rec.key(), UTF_8)).isEqualTo(vantage);
            Map<String, Object> row = byKey.get(key(vantage, b.getWindowSizeMs(), b.getWindowStartMs()));
            assertThat(b.getMessageBytes()).isEqualTo(row.get("exact_bytes"));
            assertThat(b.getBufferNeededBytes()).isEqualTo(row.get("buffer_needed_bytes"));
        }
    }

    /**
     * burst.facts (values from the kernel): 400 NEW UDP events, a listener that did not read for
     * ~1.4 s held rmem 512 000 bytes before draining. With a 1 s drain latency the minute window that
     * holds the whole burst must need exactly that.
     */
    private static void assertBurstMatchesTheKernel(Map<String, Map<String, Object>> byKey) throws IOException {
        Properties facts = new Properties();
        try (var in = Files.newInputStream(io.flowtrace.core.testing.TestData.file("conntrack/burst.facts"))) {
            facts.load(in);
        }
        List<Map<String, Object>> minutes = byKey.entrySet().stream()
                .filter(e -> e.getKey().startsWith("itct-burst/ct 60000 "))
                .map(Map.Entry::getValue)
                .toList();
        assertThat(minutes).as("the 0.43 s burst lies in one minute").hasSize(1);
        assertThat(minutes.get(0).get("events")).isEqualTo(Long.parseLong(facts.getProperty("flows")));
        assertThat(minutes.get(0).get("buffer_needed_bytes"))
                .isEqualTo(Long.parseLong(facts.getProperty("big.rmem_before_drain")));
        // 2 MiB requested → 4 MiB sk_rcvbuf holds the burst, as the conntrackd-sized listener did
        // (conntrackd.enobufs=0)
        assertThat(minutes.get(0).get("enobufs_predicted"))
                .isEqualTo(Long.parseLong(facts.getProperty("conntrackd.enobufs")));
    }

    /** Publishes the recorded messages as the raw agent would; returns the burst's first event time (ns). */
    private static long publishRecordings(String topic, Map<String, Expected> expected) {
        long burstFirst = Long.MAX_VALUE;
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (Map.Entry<String, Vantage> c : CASES.entrySet()) {
                String vantage = c.getValue().getAgentId() + "/" + c.getValue().getInterfaceName();
                for (byte[] message : ConntrackFixtures.messages(c.getKey())) {
                    ConntrackMessage core = ConntrackFixtures.parse(message);
                    io.flowtrace.avro.ConntrackEvent avro =
                            ConntrackFixtures.toAvro(core, c.getValue(), ConntrackSource.NETLINK);
                    long ms = Math.floorDiv(core.timeNanos(), 1_000_000L);
                    if (c.getKey().equals("burst")) {
                        burstFirst = Math.min(burstFirst, core.timeNanos());
                    }
                    for (long size : WINDOW_MS) {
                        Expected x = expected.computeIfAbsent(
                                key(vantage, size, Math.floorDiv(ms, size) * size), k -> new Expected());
                        x.events++;
                        x.bytes += message.length; // the .nl.bin length prefix: the real message size
                        x.core.add(core);
                    }
                    String key = vantage + " " + core.family() + "/" + core.proto() + " "
                            + core.orig().srcText() + ":" + core.orig().srcPort() + " "
                            + core.orig().dstText() + ":" + core.orig().dstPort();
                    producer.send(new ProducerRecord<>(
                            topic, key.getBytes(UTF_8), avro.toByteBuffer().array()));
                }
            }
            producer.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return burstFirst;
    }

    /** 5 records that decode but are absurd, and undecodable ones; the valid loss report too. */
    private static List<String> publishMalformed(String topic, ConntrackLoss loss) throws IOException {
        io.flowtrace.avro.ConntrackEvent good = ConntrackFixtures.toAvro(
                ConntrackFixtures.parse(ConntrackFixtures.messages("v4_plain").get(0)),
                new Vantage("itct-bad", "ct"),
                ConntrackSource.NETLINK);
        List<byte[]> values = new ArrayList<>();
        List<String> what = new ArrayList<>();
        values.add(io.flowtrace.avro.ConntrackEvent.newBuilder(good)
                .setL3Proto(7)
                .build()
                .toByteBuffer()
                .array());
        what.add("l3_proto 7");
        values.add(io.flowtrace.avro.ConntrackEvent.newBuilder(good)
                .setTimeNs(1)
                .setEventTimestampNs(null)
                .build()
                .toByteBuffer()
                .array());
        what.add("time 1970");
        values.add(io.flowtrace.avro.ConntrackEvent.newBuilder(good)
                .setWireSize(3)
                .build()
                .toByteBuffer()
                .array());
        what.add("wire_size 3");
        values.add(io.flowtrace.avro.ConntrackEvent.newBuilder(good)
                .setOrig(io.flowtrace.avro.CtTuple.newBuilder(good.getOrig())
                        .setSrc(ByteBuffer.wrap(new byte[16]))
                        .build())
                .build()
                .toByteBuffer()
                .array());
        what.add("IPv6 address in an IPv4 event");
        values.add(ConntrackLoss.newBuilder(loss)
                .setVantage(new Vantage("itct-bad", "ct"))
                .setEnobufsCount(-4)
                .build()
                .toByteBuffer()
                .array());
        what.add("negative ENOBUFS count");
        Random random = new Random(5);
        for (int i = 0; i < 3; i++) {
            byte[] garbage = new byte[1 + random.nextInt(200)];
            random.nextBytes(garbage);
            values.add(garbage);
            what.add("random bytes");
        }
        byte[] valid = good.toByteBuffer().array();
        values.add(Arrays.copyOf(valid, valid.length / 2));
        what.add("truncated");
        byte[] wrong = valid.clone();
        wrong[4] ^= 0x5a;
        values.add(wrong);
        what.add("unknown fingerprint");
        values.add(io.flowtrace.avro.Vantage.newBuilder()
                .setAgentId("x")
                .setInterfaceName("y")
                .build()
                .toByteBuffer()
                .array());
        what.add("another contract (Vantage)");
        values.add("{\"event_type\": \"NEW\"}".getBytes(UTF_8));
        what.add("JSON");
        values.add(null);
        what.add("tombstone");
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (int i = 0; i < values.size(); i++) {
                producer.send(new ProducerRecord<>(topic, ("malformed-" + i).getBytes(UTF_8), values.get(i)));
            }
            producer.send(new ProducerRecord<>(
                    topic, "itct-burst/ct".getBytes(UTF_8), loss.toByteBuffer().array()));
            producer.flush();
        }
        return what;
    }

    /**
     * Idempotent, acks=all and one request in flight: right after topic creation the first produce can
     * get NOT_LEADER_OR_FOLLOWER; with several requests in flight the later batches land first and the
     * retried one then fails forever with OUT_OF_ORDER_SEQUENCE_NUMBER (seen here), losing records.
     */
    private static KafkaProducer<byte[], byte[]> producer() {
        Properties props = KAFKA.clientProperties();
        props.put("acks", "all");
        props.put("enable.idempotence", "true");
        props.put("max.in.flight.requests.per.connection", "1");
        props.put("linger.ms", "5");
        return new KafkaProducer<>(
                props,
                new org.apache.kafka.common.serialization.ByteArraySerializer(),
                new org.apache.kafka.common.serialization.ByteArraySerializer());
    }

    private static String key(String vantage, long sizeMs, long startMs) {
        return vantage + " " + sizeMs + " " + startMs;
    }

    private static Map<String, String> jobOptions(Path checkpoints) {
        Map<String, String> o = ItJobOptions.of(
                        "itct", KAFKA.bootstrapServers(), POSTGRES.jdbcUrl(), Postgres.USER, checkpoints, PARALLELISM)
                .with(JobOption.CONNTRACK_DRAIN_LATENCY_MS, DRAIN_MS)
                .with(JobOption.CONNTRACK_SHORT_WINDOW_MS, WINDOW_MS[0])
                .with(JobOption.CONNTRACK_KERNEL_FEATURES, "stock")
                .toMap();
        return o;
    }
}
