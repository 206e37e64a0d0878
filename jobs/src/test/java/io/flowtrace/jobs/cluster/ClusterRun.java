package io.flowtrace.jobs.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.flowtrace.avro.FlowRecord;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.core.testing.TestData;
import io.flowtrace.jobs.CaptureFixtures;
import io.flowtrace.jobs.ItJobOptions;
import io.flowtrace.jobs.config.JobOption;
import io.flowtrace.testkit.Postgres;
import io.flowtrace.testkit.cluster.FlinkCluster;
import io.flowtrace.testkit.cluster.FlinkDistribution;
import io.flowtrace.testkit.cluster.JavaProcess;
import io.flowtrace.testkit.cluster.StandaloneStack;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run of the job jar on the standalone cluster, as a user runs it: its own topics (by prefix)
 * and database, the agent process replaying committed captures into the packets topic, the job
 * submitted with {@code flink run -d} (unbounded: it runs until {@code flink stop --drain}), and the
 * checks of what it left against {@code flowtrace analyze --json} of the same captures.
 */
final class ClusterRun {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterRun.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    static final int PARALLELISM = 2;
    static final Duration AGENT_SHUTDOWN_TIMEOUT = Duration.ofMinutes(5);

    final StandaloneStack stack;
    final String prefix;
    final String database;
    final ItJobOptions options;
    /** Capture (testdata/ path) → agent id; interface name eth0. */
    final Map<String, String> captures = new LinkedHashMap<>();

    String jobId;

    /**
     * The options every cluster run shares: unbounded (it runs until {@code flink stop --drain}), no
     * conntrack input, a checkpoint every 2 s, restarts allowed; a test adds what it is about with
     * {@link #with}.
     */
    ClusterRun(StandaloneStack stack, String prefix) {
        this.stack = stack;
        this.prefix = prefix;
        this.database = prefix.replace('-', '_');
        stack.postgres().createDatabase(database);
        // flink run's arguments are any local user's to read (/proc/PID/cmdline): the URL without the
        // password, which the job reads from a 0600 file in this user's private directory
        String jdbcUrl = stack.postgres().plainJdbcUrl(database);
        this.options = ItJobOptions.of(
                        prefix,
                        stack.kafka().bootstrapServers(),
                        jdbcUrl,
                        Postgres.USER,
                        stack.home().resolve("checkpoints-" + prefix),
                        PARALLELISM)
                .with(JobOption.BOUNDED, false)
                .with(JobOption.CONNTRACK_INPUT, false)
                .with(JobOption.JDBC_PASSWORD_FILE, passwordFile(stack))
                .with(JobOption.CHECKPOINT_INTERVAL_MS, 2000)
                .with(JobOption.RESTART_ATTEMPTS, 20)
                .with(JobOption.RESTART_DELAY_MS, 1000);
    }

    private static java.nio.file.Path passwordFile(StandaloneStack stack) {
        try {
            return stack.postgres().passwordFile();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** A job option of this run (and of its next {@link #submit}). */
    ClusterRun with(JobOption option, Object value) {
        options.with(option, value);
        return this;
    }

    String topic(JobOption option) {
        return options.get(option);
    }

    ClusterRun capture(String relativePath, String agentId) {
        captures.put(relativePath, agentId);
        return this;
    }

    void createTopics() throws Exception {
        stack.kafka()
                .createTopics(
                        PARALLELISM,
                        topic(JobOption.PACKETS_TOPIC),
                        topic(JobOption.CONNTRACK_TOPIC),
                        topic(JobOption.FLOWS_TOPIC),
                        topic(JobOption.TCP_EVENTS_TOPIC),
                        topic(JobOption.SERVICE_WINDOWS_TOPIC),
                        topic(JobOption.VANTAGE_WINDOWS_TOPIC),
                        topic(JobOption.CONNTRACK_BUDGETS_TOPIC),
                        topic(JobOption.DEAD_LETTERS_TOPIC));
    }

    /** {@code flink run -d flowtrace-job.jar --option value ...}, as docs/operations.md tells users. */
    String submit() throws Exception {
        return submit(null);
    }

    /** As {@link #submit()}, restoring {@code savepoint} ({@code flink run -d -s SAVEPOINT ...}) when not null. */
    String submit(String savepoint) throws Exception {
        // the broker takes SASL_SSL/SCRAM only: the kafka.* security options (the password among them)
        // come from a 0600 file, since flink run's arguments are any local user's to read
        List<String> args = new ArrayList<>(
                List.of("--config", stack.kafka().jobConfigFile().toString()));
        new TreeMap<>(options.toMap()).forEach((k, v) -> {
            args.add("--" + k);
            args.add(v);
        });
        jobId = stack.flink().submit(FlinkDistribution.fromSystemProperties().jobJar(), args, savepoint);
        stack.flink().awaitJobState(jobId, Duration.ofMinutes(2), s -> s.equals("RUNNING"));
        LOG.info("{}: job {} running", prefix, jobId);
        return jobId;
    }

    /**
     * The set-up of every run: its topics created and the job submitted ({@link #submit()}).
     * Returns {@code flowtrace analyze --json} of the captures, the truth the run is checked against.
     */
    Map<String, JsonNode> start() throws Exception {
        Map<String, JsonNode> offline = offline();
        createTopics();
        submit();
        return offline;
    }

    /** Mid-stream: a checkpoint completed and flow rows written (the moment the fault runs make their fault). */
    void awaitMidStream() throws InterruptedException {
        FlinkCluster.await(
                "a completed checkpoint and flow rows",
                Duration.ofMinutes(2),
                () -> stack.flink().completedCheckpoints(jobId) > 0 && count("flow_summary") > 0);
    }

    /** The end of every run: the agents done, everything they published consumed, then {@link #drain}. */
    void finish(List<JavaProcess> agents, Duration agentsTimeout, Duration consumedTimeout) throws Exception {
        awaitAgents(agents, agentsTimeout);
        awaitConsumed(consumedTimeout);
        drain();
    }

    /** Starts one agent process per capture ({@code flowtrace agent packets FILE}), replaying at capture speed × {@code pace} (0: as fast as possible). */
    List<JavaProcess> startAgents(double pace) throws IOException {
        List<JavaProcess> agents = new ArrayList<>();
        for (Map.Entry<String, String> c : captures.entrySet()) {
            // --shutdown-timeout: a replay whose file ends while the broker is away waits for it and
            // empties its spool (the default 30 s leaves the rest there for a next run, docs/agent.md).
            List<String> args = new ArrayList<>(List.of(
                    "agent",
                    "packets",
                    "--kafka-config",
                    stack.kafka().clientConfigFile().toString(),
                    "--topic",
                    topic(JobOption.PACKETS_TOPIC),
                    "--agent-id",
                    c.getValue(),
                    "--interface-name",
                    "eth0",
                    "--spool-dir",
                    stack.home().resolve("spool-" + prefix + "-" + c.getValue()).toString(),
                    "--shutdown-timeout",
                    Long.toString(AGENT_SHUTDOWN_TIMEOUT.toSeconds()),
                    "-q"));
            if (pace > 0) {
                args.addAll(List.of("--pace", Double.toString(pace)));
            }
            args.add(TestData.file(c.getKey()).toString());
            agents.add(JavaProcess.start(
                    "agent " + c.getValue(),
                    List.of("-Xmx256m"),
                    StandaloneStack.agentClasspath(),
                    "io.flowtrace.cli.FlowtraceCli",
                    args,
                    Map.of(),
                    stack.home().resolve("log/agent-" + prefix + "-" + c.getValue() + ".log")));
        }
        return agents;
    }

    /** Waits for every agent to exit 0 with its spool empty: everything it read is in Kafka. */
    static void awaitAgents(List<JavaProcess> agents, Duration timeout) throws InterruptedException, IOException {
        for (JavaProcess a : agents) {
            FlinkCluster.await(a.name() + " to finish", timeout, () -> !a.isAlive());
            assertThat(a.exitCode())
                    .as("%s exit code; log %s", a.name(), a.log())
                    .isZero();
            assertThat(a.logText())
                    .as("%s left records in its spool; log %s", a.name(), a.log())
                    .doesNotContain("stay in the spool");
        }
    }

    /** Waits until the job has committed (on a checkpoint) every packet the agents published. */
    void awaitConsumed(Duration timeout) throws InterruptedException {
        FlinkCluster.await(
                prefix + " consumed to the end of its packets topic",
                timeout,
                () -> stack.kafka().consumedToEnd(options.get(JobOption.GROUP_ID), topic(JobOption.PACKETS_TOPIC)));
    }

    /** {@code flink stop} without drain: a savepoint mid-stream, open flows stay in it; returns its path. */
    String stopWithSavepoint() throws Exception {
        String savepoint = stack.flink().stopWithSavepoint(jobId, false);
        stack.flink().awaitJobState(jobId, Duration.ofMinutes(2), s -> s.equals("FINISHED"));
        LOG.info("{}: stopped with savepoint {}", prefix, savepoint);
        return savepoint;
    }

    /** {@code flink stop --drain}: the documented end of a run; every open flow ends and is flushed. */
    void drain() throws Exception {
        String savepoint = stack.flink().stopWithSavepoint(jobId, true);
        stack.flink().awaitJobState(jobId, Duration.ofMinutes(2), s -> s.equals("FINISHED"));
        LOG.info("{}: drained to {}", prefix, savepoint);
    }

    /** flowtrace analyze --json of every capture (core's offline pipeline), keyed by flow identity. */
    Map<String, JsonNode> offline() {
        Map<String, JsonNode> offline = new TreeMap<>();
        captures.forEach((capture, agent) -> offline.putAll(CaptureFixtures.offlineReports(capture, agent + "/eth0")));
        return offline;
    }

    List<Map<String, Object>> query(String sql) {
        return stack.postgres().queryIn(database, sql);
    }

    /** Every flow row is final and its report equals the offline report, field for field. */
    void assertFlowRowsEqualTheOfflineAnalysis(Map<String, JsonNode> offline) throws IOException {
        Map<String, JsonNode> streamed = new TreeMap<>();
        for (Map<String, Object> row : query("SELECT report::text AS report, final FROM flow_summary")) {
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

    /** Every flow is in exactly one 10 s and one 1 min service window and vantage window. */
    void assertWindowsAddUp(int flows) {
        for (Map<String, Object> row : query(
                "SELECT window_size_ms, sum(connections) AS connections FROM service_windows GROUP BY window_size_ms")) {
            assertThat(((Number) row.get("connections")).longValue())
                    .as("connections in %s ms windows", row.get("window_size_ms"))
                    .isEqualTo(flows);
        }
        for (Map<String, Object> row : query(
                "SELECT window_size_ms, sum(flows_ended) AS flows FROM vantage_windows GROUP BY window_size_ms")) {
            assertThat(((Number) row.get("flows")).longValue())
                    .as("flows ended in %s ms vantage windows", row.get("window_size_ms"))
                    .isEqualTo(flows);
        }
        assertThat(query("SELECT DISTINCT window_size_ms FROM service_windows ORDER BY 1"))
                .extracting(r -> r.get("window_size_ms"))
                .containsExactly(10_000L, 60_000L);
    }

    /**
     * The read-committed flows topic: one key per flow of the offline analysis, each flow's last
     * record agrees with its offline report, and no record is there twice (a replay after a failure
     * that committed its output again would repeat records byte for byte).
     */
    void assertCommittedFlowRecords(Map<String, JsonNode> offline) {
        Map<String, FlowRecord> last = new HashMap<>();
        Map<String, Integer> copies = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : stack.kafka().readCommitted(topic(JobOption.FLOWS_TOPIC))) {
            FlowRecord record = decode(r.value());
            String flow = PacketEvents.vantage(record.getFlow().getVantage()) + " "
                    + record.getFlow().getClient() + " " + record.getFlow().getServer() + " "
                    + record.getFlow().getInstance();
            last.put(flow, record);
            copies.merge(java.util.HexFormat.of().formatHex(r.value()), 1, Integer::sum);
        }
        assertThat(last.keySet()).isEqualTo(offline.keySet());
        assertThat(copies.values())
                .as("committed flow records that are there more than once")
                .allMatch(n -> n == 1);
        last.forEach((flow, record) -> {
            JsonNode truth = offline.get(flow);
            assertThat(record.getEnd().name().toLowerCase(java.util.Locale.ROOT))
                    .as("%s end", flow)
                    .isEqualTo(truth.get("end").asText());
            assertThat(record.getC2s().getPackets())
                    .as("%s c2s packets", flow)
                    .isEqualTo(truth.get("c2s").get("packets").asLong());
            assertThat(record.getS2c().getDataBytes())
                    .as("%s s2c data bytes", flow)
                    .isEqualTo(truth.get("s2c").get("data_bytes").asLong());
        });
    }

    /** The integer columns of the window tables, row by row: what a failure-free run of the same input wrote. */
    Map<String, Object> windowTotals() {
        Map<String, Object> out = new TreeMap<>();
        for (Map<String, Object> r :
                query("SELECT vantage, service, window_size_ms, window_start, connections, completed_handshakes,"
                        + " data_packets, data_bytes, retransmitted_packets, slow_start_exits FROM service_windows")) {
            out.put(
                    "service " + r.get("vantage") + " " + r.get("service") + " " + r.get("window_size_ms") + " "
                            + r.get("window_start"),
                    List.of(
                            r.get("connections"),
                            r.get("completed_handshakes"),
                            r.get("data_packets"),
                            r.get("data_bytes"),
                            r.get("retransmitted_packets"),
                            r.get("slow_start_exits")));
        }
        for (Map<String, Object> r :
                query("SELECT vantage, window_size_ms, window_start, flows_ended, packets, late_packets,"
                        + " data_packets, retransmitted_packets FROM vantage_windows")) {
            out.put(
                    "vantage " + r.get("vantage") + " " + r.get("window_size_ms") + " " + r.get("window_start"),
                    List.of(
                            r.get("flows_ended"),
                            r.get("packets"),
                            r.get("late_packets"),
                            r.get("data_packets"),
                            r.get("retransmitted_packets")));
        }
        return out;
    }

    long count(String table) {
        return ((Number) query("SELECT count(*) AS n FROM " + table).get(0).get("n")).longValue();
    }

    private static FlowRecord decode(byte[] value) {
        try {
            return FlowRecord.getDecoder().decode(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
