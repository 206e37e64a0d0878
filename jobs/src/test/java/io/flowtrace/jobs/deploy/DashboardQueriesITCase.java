package io.flowtrace.jobs.deploy;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.flowtrace.avro.ConntrackSource;
import io.flowtrace.avro.PacketEvent;
import io.flowtrace.avro.Vantage;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.core.conntrack.ConntrackMessage;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.jobs.CaptureFixtures;
import io.flowtrace.jobs.FlowtraceJob;
import io.flowtrace.jobs.ItJobOptions;
import io.flowtrace.jobs.JobTopics;
import io.flowtrace.jobs.config.JobConfig;
import io.flowtrace.jobs.config.JobOption;
import io.flowtrace.jobs.conntrack.ConntrackFixtures;
import io.flowtrace.jobs.deploy.GrafanaDashboards.Dashboard;
import io.flowtrace.jobs.deploy.GrafanaDashboards.PanelQuery;
import io.flowtrace.jobs.deploy.GrafanaDashboards.Variable;
import io.flowtrace.jobs.deploy.GrafanaSql.Value;
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
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Grafana dashboards against the job's real output. A real PostgreSQL gets the roles of
 * deploy/sql/admin/roles.sql; the real job runs on a MiniCluster as the writer role over two committed
 * packet captures (short-conns: 240 short connections with SYN loss; cubic-loss: a bulk transfer with
 * loss and a slow-start exit), the recorded ctnetlink messages of testdata/conntrack (v4_plain, burst)
 * and a few malformed records. Then every panel query of every dashboard JSON is extracted, expanded as
 * Grafana would ({@link GrafanaSql}) and run as the read-only role: it must succeed and return rows for
 * a range around the data, and return nothing for a range without data; the services table and the
 * overview totals must also equal what core's offline analysis and the publisher counted.
 *
 * <p>Setup order on purpose: an administrator applies the migrations first (the documented
 * {@code --jdbc-init-schema false} path), then roles.sql hands the tables to the writer, then the
 * writer applies every migration again at job start, as the job does, and runs the job.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DashboardQueriesITCase {
    private static final Logger LOG = LoggerFactory.getLogger(DashboardQueriesITCase.class);
    private static final int PARALLELISM = 2;
    private static final String WRITER = "flowtrace_writer";
    private static final String READER = "flowtrace_reader";
    private static final List<String> TABLES = List.of(
            "flow_summary",
            "tcp_events",
            "service_windows",
            "vantage_windows",
            "conntrack_budgets",
            "dead_letters",
            "openvpn_sessions",
            "openvpn_server_windows");
    /** Recorded OpenVPN setups (testdata/openvpn), a day after the TCP captures: published after them. */
    private static final String OPENVPN_CAPTURE = "openvpn/push-1k.client.pcap.gz";

    private static final Vantage OPENVPN_VANTAGE = new Vantage("dash-ovpn", "if0");
    private static final Map<String, Vantage> CAPTURES = new LinkedHashMap<>();
    private static final Map<String, Vantage> CONNTRACK = new LinkedHashMap<>();
    private static final Duration DATASOURCE_MIN_INTERVAL = DashboardReader.DATASOURCE_MIN_INTERVAL;
    /** A range long before any data (captures are from 2026; the dead letters get the job's clock). */
    private static final Instant EMPTY_FROM = Instant.parse("2001-01-01T00:00:00Z");

    private static final Instant EMPTY_TO = Instant.parse("2001-01-02T00:00:00Z");

    static {
        // In capture order (cubic-loss was recorded about a minute before short-conns), as live agents
        // publish: a flow whose end lies behind its partition's watermark misses its window (the
        // window has fired), and the window panels would lack it.
        CAPTURES.put("tcp/cubic-loss.sender.pcap.gz", new Vantage("dash-cubic", "eth0"));
        CAPTURES.put("tcp/short-conns.sender.pcap.gz", new Vantage("dash-short", "eth0"));
        CONNTRACK.put("v4_plain", new Vantage("dash-ct-plain", "ct"));
        CONNTRACK.put("burst", new Vantage("dash-ct-burst", "ct"));
    }

    @RegisterExtension
    static final PipelineServices SERVICES = PipelineServices.withSlots(PARALLELISM);

    static final KafkaBroker KAFKA = SERVICES.kafka();
    static final Postgres POSTGRES = SERVICES.postgres();

    private static boolean loaded;
    private static Instant dataFrom;
    private static Instant dataTo;
    private static long publishedPackets;

    /** Runs once, inside the first test (the MiniCluster's environment is set per test method). */
    private static synchronized void load() throws Exception {
        if (loaded) {
            return;
        }
        Path checkpoints = Files.createTempDirectory("dash-checkpoints");
        JobConfig admin = JobConfig.of(jobOptions(checkpoints, "postgres"));
        PostgresSinks.applySchema(admin); // the administrator's migrations (tables owned by postgres now)
        runAsAdmin(Files.readString(RepoFiles.path("deploy/sql/admin/roles.sql"), UTF_8));
        runAsAdmin(Files.readString(RepoFiles.path("deploy/sql/admin/roles.sql"), UTF_8)); // idempotent

        JobConfig config = JobConfig.of(jobOptions(checkpoints, WRITER));
        JobTopics.create(KAFKA, PARALLELISM, config);
        long[] packetTimes = publishCaptures(config.get(JobOption.PACKETS_TOPIC));
        publishedPackets = packetTimes[2];
        long[] conntrackTimes = publishConntrack(config.get(JobOption.CONNTRACK_TOPIC));
        publishMalformed(config.get(JobOption.PACKETS_TOPIC));

        PostgresSinks.applySchema(config); // what the job does at start, as the writer
        PostgresSinks.applySchema(config);
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(FlowtraceJob.flinkConfiguration(config));
        new FlowtraceJob(
                        config,
                        InputSources.packets(config),
                        InputSources.conntrack(config),
                        JobSinks.fromConfig(config))
                .withOpenVpnSinks(io.flowtrace.jobs.output.OpenVpnSinks.fromConfig(config))
                .build(env);
        long started = System.nanoTime();
        env.execute("dashboard-itcase");
        LOG.info("job finished in {} ms", (System.nanoTime() - started) / 1_000_000);

        // The range a user would pick: from an hour before the first captured packet or event to an hour
        // after now (dead letters carry the job's wall-clock time). Known from the inputs, not the output.
        dataFrom = Instant.ofEpochMilli(Math.min(packetTimes[0], conntrackTimes[0]) / 1_000_000L)
                .minus(Duration.ofHours(1));
        dataTo = Instant.now().plus(Duration.ofHours(1));
        loaded = true;
    }

    @Test
    @Order(1)
    void theWriterOwnsTheTablesAndNoRoleIsSuperuser() throws Exception {
        load();
        for (Map<String, Object> t :
                POSTGRES.query("SELECT tablename, tableowner FROM pg_tables WHERE schemaname = 'public'")) {
            if (TABLES.contains((String) t.get("tablename")) || "flow_conntrack".equals(t.get("tablename"))) {
                assertThat(t.get("tableowner"))
                        .as("owner of %s", t.get("tablename"))
                        .isEqualTo(WRITER);
            }
        }
        for (Map<String, Object> r : POSTGRES.query(
                "SELECT rolname, rolsuper, rolcreaterole, rolcreatedb, rolbypassrls FROM pg_roles WHERE rolname LIKE 'flowtrace_%'")) {
            assertThat(List.of(r.get("rolsuper"), r.get("rolcreaterole"), r.get("rolcreatedb"), r.get("rolbypassrls")))
                    .as("privileges of %s", r.get("rolname"))
                    .containsOnly(false);
        }
        // The job wrote through the writer: every table the dashboards read has rows.
        for (String table : TABLES) {
            assertThat(((Number) POSTGRES.query("SELECT count(*) AS n FROM " + table)
                                    .get(0)
                                    .get("n"))
                            .longValue())
                    .as("rows in %s", table)
                    .isPositive();
        }
    }

    @Test
    @Order(2)
    void everyPanelQueryRunsAsTheReaderAndReturnsRows() throws Exception {
        load();
        List<Dashboard> dashboards = GrafanaDashboards.all();
        assertThat(dashboards)
                .extracting(Dashboard::uid)
                .containsExactlyInAnyOrder(
                        "flowtrace-overview",
                        "flowtrace-services",
                        "flowtrace-slow-start",
                        "flowtrace-flow",
                        "flowtrace-conntrack",
                        "flowtrace-openvpn");
        int queries = 0;
        try (Connection reader = connect(READER)) {
            for (Dashboard d : dashboards) {
                Map<String, Value> variables = resolveVariables(reader, d, dataFrom, dataTo);
                for (PanelQuery q : d.queries()) {
                    assertThat(q.rawSql()).as("%s has raw SQL", q).isNotBlank();
                    List<List<Object>> rows = run(reader, q, variables, dataFrom, dataTo);
                    assertThat(rows).as("rows of %s over the data's range", q).isNotEmpty();
                    LOG.info("{}: {} rows, first {}", q, rows.size(), rows.get(0));
                    queries++;
                }
            }
        }
        LOG.info("{} panel queries returned rows as {}", queries, READER);
        assertThat(queries).isGreaterThanOrEqualTo(5 * 5);
    }

    /**
     * Two panels against an independent truth: the services table (pooled from the service windows)
     * against core's offline analysis of the same captures (what {@code flowtrace analyze --json}
     * reports): connections, handshakes, setup mean and population sd worked out here, SYN and SYN-ACK
     * retransmits; the overview totals against the packets published.
     */
    @Test
    @Order(3)
    void servicesTableAndTotalsAgreeWithTheOfflineAnalysis() throws Exception {
        load();
        Map<String, List<JsonNode>> byServer = new TreeMap<>();
        CAPTURES.forEach((capture, vantage) -> CaptureFixtures.offlineReports(capture, PacketEvents.vantage(vantage))
                .values()
                .forEach(r -> byServer.computeIfAbsent(
                                r.get("flow").get("server").asText(), k -> new ArrayList<>())
                        .add(r)));
        try (Connection reader = connect(READER)) {
            Dashboard services = dashboard("flowtrace-services");
            List<List<Object>> rows = run(
                    reader,
                    panel(services, "Connection setup per service (flows ended in range)"),
                    resolveVariables(reader, services, dataFrom, dataTo),
                    dataFrom,
                    dataTo);
            Map<String, List<Object>> byService = new TreeMap<>();
            rows.forEach(r -> byService.put((String) r.get(0), r));
            assertThat(byService.keySet()).isEqualTo(byServer.keySet());
            byServer.forEach((server, flows) -> {
                List<Double> setups = new ArrayList<>();
                long syn = 0;
                long synack = 0;
                for (JsonNode f : flows) {
                    if (!f.get("setup").get("setup_us").isNull()) {
                        setups.add(f.get("setup").get("setup_us").asDouble() / 1000);
                    }
                    syn += f.get("setup").get("syn_retransmits").asLong();
                    synack += f.get("setup").get("synack_retransmits").asLong();
                }
                List<Object> row = byService.get(server);
                assertThat(((Number) row.get(1)).longValue())
                        .as("connections of %s", server)
                        .isEqualTo(flows.size());
                assertThat(((Number) row.get(2)).longValue())
                        .as("handshakes of %s", server)
                        .isEqualTo(setups.size());
                assertThat(((Number) row.get(5)).longValue())
                        .as("SYN retransmits of %s", server)
                        .isEqualTo(syn);
                assertThat(((Number) row.get(6)).longValue())
                        .as("SYN-ACK retransmits of %s", server)
                        .isEqualTo(synack);
                if (!setups.isEmpty()) {
                    double mean = setups.stream()
                            .mapToDouble(Double::doubleValue)
                            .average()
                            .orElseThrow();
                    double sd = Math.sqrt(setups.stream()
                                    .mapToDouble(v -> (v - mean) * (v - mean))
                                    .sum()
                            / setups.size());
                    org.assertj.core.data.Offset<Double> close = org.assertj.core.data.Offset.offset(1e-5);
                    assertThat(((Number) row.get(3)).doubleValue())
                            .as("mean setup of %s", server)
                            .isCloseTo(mean, close);
                    assertThat(((Number) row.get(4)).doubleValue())
                            .as("sd setup of %s", server)
                            .isCloseTo(sd, close);
                }
            });
            assertThat(byServer.values().stream().mapToLong(l -> l.size()).sum())
                    .as("flows in the captures")
                    .isGreaterThan(200);

            Dashboard overview = dashboard("flowtrace-overview");
            List<List<Object>> totals = run(
                    reader,
                    panel(overview, "Totals in range"),
                    resolveVariables(reader, overview, dataFrom, dataTo),
                    dataFrom,
                    dataTo);
            assertThat(((Number) totals.get(0).get(0)).longValue())
                    .as("packets of every flow")
                    .isEqualTo(publishedPackets);
        }
    }

    private static Dashboard dashboard(String uid) {
        return GrafanaDashboards.all().stream()
                .filter(d -> d.uid().equals(uid))
                .findFirst()
                .orElseThrow();
    }

    private static PanelQuery panel(Dashboard d, String title) {
        return d.queries().stream()
                .filter(q -> q.title().equals(title))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no panel \"" + title + "\" in " + d.uid()));
    }

    @Test
    @Order(4)
    void everyPanelRespectsTheDashboardTimeRange() throws Exception {
        load();
        try (Connection reader = connect(READER)) {
            for (Dashboard d : GrafanaDashboards.all()) {
                // Variables as the user chose them over the data; then the range moves away from the data.
                Map<String, Value> variables = resolveVariables(reader, d, dataFrom, dataTo);
                for (Variable v : d.variables()) {
                    if (v.type().equals("query")) {
                        assertThat(v.query())
                                .as("variable %s of %s", v.name(), d.uid())
                                .contains("$__timeFilter(");
                        assertThat(query(
                                        reader,
                                        expand(v.query(), variables, EMPTY_FROM, EMPTY_TO, DATASOURCE_MIN_INTERVAL)))
                                .as("values of %s outside the data's range", v.name())
                                .isEmpty();
                    }
                }
                for (PanelQuery q : d.queries()) {
                    assertThat(q.rawSql())
                            .as("%s filters on the dashboard range", q)
                            .contains("$__timeFilter(");
                    assertThat(run(reader, q, variables, EMPTY_FROM, EMPTY_TO))
                            .as("rows of %s in %s..%s", q, EMPTY_FROM, EMPTY_TO)
                            .isEmpty();
                }
            }
        }
    }

    @Test
    @Order(5)
    void theReaderCannotWrite() throws Exception {
        load();
        try (Connection reader = connect(READER);
                Statement st = reader.createStatement()) {
            // The role's default: read-only transactions.
            assertThatThrownBy(() -> st.executeUpdate("DELETE FROM dead_letters"))
                    .isInstanceOfSatisfying(
                            SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("25006"));
            // Privileges hold even when the session turns read-only off.
            st.execute("SET default_transaction_read_only = off");
            for (String write : List.of(
                    "DELETE FROM dead_letters",
                    "UPDATE flow_summary SET final = false",
                    "INSERT INTO tcp_events (vantage, client, server, instance, event_index, event_time, kind, direction)"
                            + " VALUES ('x', 'x', 'x', 0, 0, now(), 'x', 'x')",
                    "TRUNCATE conntrack_budgets",
                    "CREATE TABLE reader_table (i int)",
                    "ALTER TABLE service_windows ADD COLUMN reader_column int",
                    "SELECT * FROM flowtrace_purge(now())")) {
                assertThatThrownBy(() -> st.execute(write))
                        .as(write)
                        .isInstanceOfSatisfying(
                                SQLException.class,
                                e -> assertThat(e.getSQLState()).as(write).isEqualTo("42501"));
            }
        }
    }

    @Test
    @Order(6)
    void tablesTheWriterCreatesLaterAreReadable() throws Exception {
        load();
        try (Connection writer = connect(WRITER);
                Statement w = writer.createStatement()) {
            w.execute("CREATE TABLE IF NOT EXISTS v_next_migration (i int)");
            w.execute("INSERT INTO v_next_migration VALUES (7)");
            try (Connection reader = connect(READER)) {
                assertThat(query(reader, "SELECT i FROM v_next_migration")).containsExactly(List.of(7));
            }
            w.execute("DROP TABLE v_next_migration");
        }
    }

    /** Last: deletes data. Counts to delete are computed here from each table's time column, independently. */
    @Test
    @Order(7)
    void purgeDeletesExactlyTheRowsOlderThanTheCutoff() throws Exception {
        load();
        Instant cutoff = ((java.sql.Timestamp) POSTGRES.query(
                                "SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY last_seen) AS t FROM flow_summary")
                        .get(0)
                        .get("t"))
                .toInstant();
        Map<String, String> ageColumn = Map.of(
                "flow_summary",
                "last_seen",
                "tcp_events",
                "event_time",
                "service_windows",
                "window_end",
                "vantage_windows",
                "window_end",
                "conntrack_budgets",
                "window_end",
                "dead_letters",
                "job_time",
                "openvpn_sessions",
                "last_seen",
                "openvpn_server_windows",
                "window_end");
        Map<String, Long> older = new HashMap<>();
        Map<String, Long> total = new HashMap<>();
        for (String table : TABLES) {
            Map<String, Object> row = POSTGRES.query(
                            "SELECT count(*) FILTER (WHERE " + ageColumn.get(table)
                                    + " < ?) AS older, count(*) AS total FROM " + table,
                            java.sql.Timestamp.from(cutoff))
                    .get(0);
            older.put(table, ((Number) row.get("older")).longValue());
            total.put(table, ((Number) row.get("total")).longValue());
        }
        assertThat(older.get("flow_summary")).isPositive().isLessThan(total.get("flow_summary"));
        // The conntrack join's rows (V4) age by join_time_us, event time in microseconds. These captures
        // have no conntrack entries of their own: one joined row just before and one just after the cutoff.
        long cutoffUs = cutoff.getEpochSecond() * 1_000_000L + cutoff.getNano() / 1000;
        for (long t : new long[] {cutoffUs - 1, cutoffUs + 1}) {
            POSTGRES.execute(
                    "INSERT INTO flow_conntrack (vantage, client, server, instance, ct_vantage, tuple_side, nat, "
                            + "pre_nat_client, pre_nat_server, post_nat_client, post_nat_server, ct_status, ct_destroyed, "
                            + "captured_c2s_packets, captured_s2c_packets, flow_final, join_time_us) VALUES ('purge/if0', "
                            + "'10.0.0.1:1', '10.0.0.2:2', " + t
                            + ", 'purge/conntrack', 'original', 'none', '10.0.0.1:1', "
                            + "'10.0.0.2:2', '10.0.0.1:1', '10.0.0.2:2', 14, true, 1, 1, true, " + t + ")");
        }
        Map<String, Object> joined = POSTGRES.query(
                        "SELECT count(*) FILTER (WHERE join_time_us < ?) AS older, count(*) AS total "
                                + "FROM flow_conntrack",
                        cutoffUs)
                .get(0);
        older.put("flow_conntrack", ((Number) joined.get("older")).longValue());
        assertThat(older.get("flow_conntrack")).isPositive().isLessThan(((Number) joined.get("total")).longValue());
        total.put("flow_conntrack", ((Number) joined.get("total")).longValue());

        Map<String, Long> deleted = new HashMap<>();
        try (Connection writer = connect(WRITER);
                java.sql.PreparedStatement st =
                        writer.prepareStatement("SELECT table_name, deleted FROM flowtrace_purge(?)")) {
            st.setObject(1, java.time.OffsetDateTime.ofInstant(cutoff, java.time.ZoneOffset.UTC));
            try (ResultSet rs = st.executeQuery()) {
                while (rs.next()) {
                    deleted.put(rs.getString(1), rs.getLong(2));
                }
            }
        }
        assertThat(deleted).isEqualTo(older);
        for (String table : older.keySet()) {
            assertThat(((Number) POSTGRES.query("SELECT count(*) AS n FROM " + table)
                                    .get(0)
                                    .get("n"))
                            .longValue())
                    .as("rows left in %s", table)
                    .isEqualTo(total.get(table) - older.get(table));
        }
    }

    // ------------------------------------------------------------------ Grafana emulation (DashboardReader)

    private static Map<String, Value> resolveVariables(Connection reader, Dashboard d, Instant from, Instant to)
            throws SQLException {
        return DashboardReader.variables(reader, d, from, to, false);
    }

    private static List<List<Object>> run(
            Connection reader, PanelQuery q, Map<String, Value> variables, Instant from, Instant to) {
        return DashboardReader.run(reader, q, variables, from, to);
    }

    private static String expand(
            String raw, Map<String, Value> variables, Instant from, Instant to, Duration minInterval) {
        return DashboardReader.expand(raw, variables, from, to, minInterval);
    }

    private static List<List<Object>> query(Connection c, String sql) throws SQLException {
        return DashboardReader.query(c, sql);
    }

    // ------------------------------------------------------------------ setup

    /** A real login as the role (the embedded server gives it a random password first: it trusts nobody). */
    private static Connection connect(String role) throws SQLException {
        return POSTGRES.connectAs(role, Postgres.DATABASE);
    }

    private static void runAsAdmin(String sql) throws SQLException {
        try (Connection c = POSTGRES.dataSource().getConnection();
                Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    /** Every TCP packet of the captures as an agent publishes them; returns the first and last capture time (ns). */
    private static long[] publishCaptures(String topic) {
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        long sent = 0;
        DecodedPacket scratch = new DecodedPacket();
        try (KafkaProducer<byte[], byte[]> producer = KAFKA.newProducer()) {
            for (Map.Entry<String, Vantage> capture : CAPTURES.entrySet()) {
                for (PacketEvent p : CaptureFixtures.packets(capture.getKey(), capture.getValue())) {
                    PacketEvents.fromAvro(p, scratch);
                    String key = PacketEvents.flowKey(PacketEvents.vantagePoint(p.getVantage()), scratch);
                    producer.send(new ProducerRecord<>(
                            topic, key.getBytes(UTF_8), p.toByteBuffer().array()));
                    first = Math.min(first, p.getCaptureTimeNs());
                    last = Math.max(last, p.getCaptureTimeNs());
                    sent++;
                }
            }
            // OpenVPN batches as an agent sends them (not counted in `sent`: the TCP totals compare with it)
            for (io.flowtrace.avro.OpenVpnBatch b :
                    io.flowtrace.jobs.openvpn.OpenVpnFixtures.batches(OPENVPN_CAPTURE, OPENVPN_VANTAGE, 64, r -> {})) {
                java.nio.ByteBuffer value = b.toByteBuffer();
                byte[] bytes = new byte[value.remaining()];
                value.get(bytes);
                producer.send(new ProducerRecord<>(
                        topic,
                        io.flowtrace.avro.mapping.OpenVpnBatches.flowKey(b).getBytes(UTF_8),
                        bytes));
                first = Math.min(first, b.getBaseTimeNs());
                last = Math.max(last, b.getBaseTimeNs());
            }
            producer.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new long[] {first, last, sent};
    }

    /** The recorded ctnetlink messages as the raw-netlink agent maps and keys them; returns the first and last event time (ns). */
    private static long[] publishConntrack(String topic) {
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        try (KafkaProducer<byte[], byte[]> producer = KAFKA.newProducer()) {
            for (Map.Entry<String, Vantage> c : CONNTRACK.entrySet()) {
                String vantage = c.getValue().getAgentId() + "/" + c.getValue().getInterfaceName();
                for (byte[] message : ConntrackFixtures.messages(c.getKey())) {
                    ConntrackMessage core = ConntrackFixtures.parse(message);
                    io.flowtrace.avro.ConntrackEvent avro =
                            ConntrackFixtures.toAvro(core, c.getValue(), ConntrackSource.NETLINK);
                    String key = vantage + " " + core.family() + "/" + core.proto() + " "
                            + core.orig().srcText() + ":" + core.orig().srcPort() + " "
                            + core.orig().dstText() + ":" + core.orig().dstPort();
                    producer.send(new ProducerRecord<>(
                            topic, key.getBytes(UTF_8), avro.toByteBuffer().array()));
                    first = Math.min(first, core.timeNanos());
                    last = Math.max(last, core.timeNanos());
                }
            }
            producer.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new long[] {first, last};
    }

    /** A few records that are not PacketEvents, so the dead-letter panels have rows. */
    private static void publishMalformed(String topic) {
        Random random = new Random(9);
        try (KafkaProducer<byte[], byte[]> producer = KAFKA.newProducer()) {
            for (int i = 0; i < 4; i++) {
                byte[] garbage = new byte[1 + random.nextInt(100)];
                random.nextBytes(garbage);
                producer.send(new ProducerRecord<>(topic, ("bad-" + i).getBytes(UTF_8), garbage));
            }
            producer.send(new ProducerRecord<>(topic, "bad-text".getBytes(UTF_8), "not avro".getBytes(UTF_8)));
            producer.flush();
        }
    }

    private static Map<String, String> jobOptions(Path checkpoints, String user) {
        // the role's password in the URL: this JVM's MiniCluster only, and the job masks it in its log
        String url = POSTGRES.plainJdbcUrl(Postgres.DATABASE) + "?password=" + POSTGRES.rolePassword(user);
        return ItJobOptions.bounded("dash", KAFKA.bootstrapServers(), url, user, checkpoints, PARALLELISM);
    }
}
