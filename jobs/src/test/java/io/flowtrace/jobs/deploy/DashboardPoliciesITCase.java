package io.flowtrace.jobs.deploy;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.avro.Vantage;
import io.flowtrace.jobs.CaptureFixtures;
import io.flowtrace.jobs.FlowtraceJob;
import io.flowtrace.jobs.ItJobOptions;
import io.flowtrace.jobs.JobTopics;
import io.flowtrace.jobs.config.JobConfig;
import io.flowtrace.jobs.config.JobOption;
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
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dashboards under each output policy (docs/job.md "Flow rows in PostgreSQL"): one job run per
 * {@code --flow-rows} choice ({@code all}, {@code notable}, {@code none}, no sample) over the same
 * published capture, {@code tcp/short-conns.sender.pcap.gz} (240 short connections through a lossy
 * router, 147 of them with retransmissions), every sink table emptied before each run. After each
 * run every panel query of the flow dashboards (overview, services, slow start, drill-down) runs as
 * the read-only role, expanded as Grafana would, over one fixed range.
 *
 * <p>A panel either shows the window tables, and then returns the same non-empty rows under the
 * three policies (the windows get every flow whatever the policy says), or it shows flow rows
 * ({@link #FLOW_ROW_PANELS}: the drill-down, lists of flows, and the figures the windows do not
 * hold), and then its title or description names {@code --flow-rows}, it returns rows under
 * {@code all} and {@code notable} and none under {@code none}. The truth is the policy's own
 * definition: a window panel must not depend on it, a flow-row panel has nothing to show without
 * flow rows.
 */
class DashboardPoliciesITCase {
    private static final Logger LOG = LoggerFactory.getLogger(DashboardPoliciesITCase.class);
    private static final int PARALLELISM = 2;
    private static final String WRITER = "flowtrace_writer";
    private static final String READER = "flowtrace_reader";
    private static final String CAPTURE = "tcp/short-conns.sender.pcap.gz";
    private static final Vantage VANTAGE = new Vantage("dash-policy", "eth0");
    private static final String PACKETS_TOPIC = "dash-policy.packets";
    private static final List<String> POLICIES = List.of("all", "notable", "none");
    /** The dashboards over flows; conntrack budget and OpenVPN read tables no flow-rows policy writes. */
    private static final Set<String> FLOW_DASHBOARDS =
            Set.of("flowtrace-overview", "flowtrace-services", "flowtrace-slow-start", "flowtrace-flow");
    /**
     * Panels that show flow_summary rows: the whole drill-down (one flow), the lists of flows, and the
     * per-direction figures the window tables do not hold (live flows: a window counts a flow when it
     * ends; slow-start exit reasons, the exit cwnd histogram and cwnd-stuck rounds: service_windows
     * keeps only exits, premature exits and exit cwnd p50/p90).
     */
    private static final Set<String> FLOW_ROW_PANELS = Set.of(
            "flowtrace-overview / Live flows (flow rows)",
            "flowtrace-slow-start / Slow-start exit reasons (flow rows)",
            "flowtrace-slow-start / Exit cwnd histogram (segments, flow rows)",
            "flowtrace-slow-start / Premature exits vs BDP (flow rows)",
            "flowtrace-slow-start / Flows with cwnd-stuck rounds (flow rows)",
            "flowtrace-slow-start / Most cwnd-stuck directions (flow rows)",
            "flowtrace-flow / Flow",
            "flowtrace-flow / Rounds and slow start per direction",
            "flowtrace-flow / Retransmitted and lost sequence ranges over time",
            "flowtrace-flow / Events",
            "flowtrace-flow / Report (analyze --json)");

    private static final List<String> TABLES = List.of(
            "flow_summary",
            "tcp_events",
            "service_windows",
            "vantage_windows",
            "dead_letters",
            "flow_conntrack",
            "conntrack_budgets");

    @RegisterExtension
    static final PipelineServices SERVICES = PipelineServices.withSlots(PARALLELISM);

    static final KafkaBroker KAFKA = SERVICES.kafka();
    static final Postgres POSTGRES = SERVICES.postgres();

    /** Per policy, per panel query ("dashboard / title / refId"), its rows in a canonical form. */
    private static final Map<String, Map<String, List<String>>> RESULTS = new LinkedHashMap<>();

    private static Map<String, PanelQuery> panels;

    /** Runs once, inside the first test (the MiniCluster's environment is set per test method). */
    private static synchronized void load() throws Exception {
        if (!RESULTS.isEmpty()) {
            return;
        }
        Path checkpoints = Files.createTempDirectory("dash-policy-checkpoints");
        PostgresSinks.applySchema(options("dash-policy-admin", checkpoints, "postgres", "all")
                .config()); // the administrator's migrations, then the roles
        try (Connection admin = POSTGRES.dataSource().getConnection();
                Statement st = admin.createStatement()) {
            st.execute(Files.readString(RepoFiles.path("deploy/sql/admin/roles.sql"), UTF_8));
        }
        KAFKA.createTopic(PACKETS_TOPIC, PARALLELISM);
        long firstPacketNs = CaptureFixtures.publish(KAFKA, PACKETS_TOPIC, CAPTURE, VANTAGE);
        // One range for the three runs: an hour before the first packet to an hour after now.
        Instant from = Instant.ofEpochMilli(firstPacketNs / 1_000_000L).minus(Duration.ofHours(1));
        Instant to = Instant.now().plus(Duration.ofHours(1));

        panels = new LinkedHashMap<>();
        for (String policy : POLICIES) {
            for (String table : TABLES) {
                POSTGRES.execute("TRUNCATE " + table);
            }
            JobConfig config = options("dash-policy-" + policy, checkpoints, WRITER, policy)
                    .config();
            JobTopics.create(KAFKA, PARALLELISM, config, JobTopics.OUTPUTS);
            StreamExecutionEnvironment env =
                    StreamExecutionEnvironment.getExecutionEnvironment(FlowtraceJob.flinkConfiguration(config));
            new FlowtraceJob(config, InputSources.packets(config), JobSinks.fromConfig(config)).build(env);
            long started = System.nanoTime();
            env.execute("dash-policy-" + policy);
            LOG.info("--flow-rows {}: job finished in {} ms", policy, (System.nanoTime() - started) / 1_000_000);
            RESULTS.put(policy, readDashboards(from, to));
        }
    }

    @Test
    void everyWindowPanelShowsTheSameRowsUnderEveryPolicy() throws Exception {
        load();
        int checked = 0;
        for (Map.Entry<String, PanelQuery> p : panels.entrySet()) {
            PanelQuery q = p.getValue();
            if (isFlowRowPanel(q) || q.rawSql().contains("dead_letters")) {
                continue; // dead letters: no malformed input here, and no policy touches them
            }
            assertThat(q.rawSql())
                    .as("%s is not a flow-row panel: it must not read flow_summary", q)
                    .doesNotContain("flow_summary");
            List<String> all = RESULTS.get("all").get(p.getKey());
            assertThat(all).as("rows of %s under --flow-rows all", q).isNotEmpty();
            for (String policy : List.of("notable", "none")) {
                assertThat(RESULTS.get(policy).get(p.getKey()))
                        .as("rows of %s under --flow-rows %s against all", q, policy)
                        .isEqualTo(all);
            }
            checked++;
        }
        // overview: packets/s, flows ended, retransmission rate, totals, throughput; services: all 7; slow start:
        // premature share
        assertThat(checked).isEqualTo(5 + 7 + 1);
    }

    @Test
    void flowRowPanelsSaySoAndShowNothingWithoutFlowRows() throws Exception {
        load();
        int checked = 0;
        for (Map.Entry<String, PanelQuery> p : panels.entrySet()) {
            PanelQuery q = p.getValue();
            if (!isFlowRowPanel(q)) {
                continue;
            }
            String text = q.title() + " " + description(q);
            assertThat(text).as("%s says it shows flow rows", q).containsIgnoringCase("flow rows");
            assertThat(description(q)).as("%s says what each policy writes", q).contains("--flow-rows");
            for (String policy : List.of("all", "notable")) {
                assertThat(RESULTS.get(policy).get(p.getKey()))
                        .as("rows of %s under --flow-rows %s", q, policy)
                        .isNotEmpty();
            }
            assertThat(RESULTS.get("none").get(p.getKey()))
                    .as("rows of %s under --flow-rows none without a sample", q)
                    .isEmpty();
            checked++;
        }
        assertThat(checked).isEqualTo(FLOW_ROW_PANELS.size());
    }

    /** A dashboard variable that reads flow_summary would have no value under none and empty every panel using it. */
    @Test
    void onlyTheFlowListReadsFlowRows() throws Exception {
        load();
        for (Dashboard d : GrafanaDashboards.all()) {
            for (Variable v : d.variables()) {
                if (v.query() != null && v.query().contains("flow_summary")) {
                    assertThat(d.uid() + " $" + v.name()).isEqualTo("flowtrace-flow $flow");
                }
            }
        }
    }

    private static boolean isFlowRowPanel(PanelQuery q) {
        return FLOW_ROW_PANELS.contains(uid(q) + " / " + q.title());
    }

    private static String uid(PanelQuery q) {
        return GrafanaDashboards.read(GrafanaDashboards.directory().resolve(q.dashboard()))
                .uid();
    }

    private static String description(PanelQuery q) {
        Dashboard d = GrafanaDashboards.read(GrafanaDashboards.directory().resolve(q.dashboard()));
        for (com.fasterxml.jackson.databind.JsonNode p : d.root().path("panels")) {
            if (p.path("id").asInt() == q.panelId()) {
                return p.path("description").asText("");
            }
        }
        throw new AssertionError("no panel " + q.panelId() + " in " + q.dashboard());
    }

    /** Every panel query of the flow dashboards, as the reader, in a canonical form. */
    private static Map<String, List<String>> readDashboards(Instant from, Instant to) throws Exception {
        Map<String, List<String>> out = new LinkedHashMap<>();
        try (Connection reader = POSTGRES.connectAs(READER, Postgres.DATABASE)) {
            for (Dashboard d : GrafanaDashboards.all()) {
                if (!FLOW_DASHBOARDS.contains(d.uid())) {
                    continue;
                }
                Map<String, Value> variables = DashboardReader.variables(reader, d, from, to, true);
                for (PanelQuery q : d.queries()) {
                    String key = d.uid() + " / " + q.title() + " / " + q.refId();
                    panels.put(key, q);
                    out.put(key, canonical(DashboardReader.run(reader, q, variables, from, to)));
                }
            }
        }
        return out;
    }

    /**
     * Rows as text, sorted (rows tied in a panel's ORDER BY may come in any order), numbers to ten
     * significant digits: a window's mean and sd sum doubles in the order the two subtasks' partials
     * arrive, which may differ between runs in the last bits.
     */
    private static List<String> canonical(List<List<Object>> rows) {
        List<String> out = new ArrayList<>();
        for (List<Object> row : rows) {
            List<String> cells = new ArrayList<>();
            for (Object c : row) {
                if (c instanceof Double || c instanceof Float || c instanceof BigDecimal) {
                    cells.add(new BigDecimal(c.toString())
                            .round(new MathContext(10))
                            .stripTrailingZeros()
                            .toPlainString());
                } else {
                    cells.add(String.valueOf(c));
                }
            }
            out.add(String.join(" | ", cells));
        }
        out.sort(null);
        return out;
    }

    private static ItJobOptions options(String prefix, Path checkpoints, String user, String policy) {
        // the role's password in the URL: this JVM's MiniCluster only, and the job masks it in its log
        String url = POSTGRES.plainJdbcUrl(Postgres.DATABASE) + "?password=" + POSTGRES.rolePassword(user);
        return ItJobOptions.of(prefix, KAFKA.bootstrapServers(), url, user, checkpoints.resolve(prefix), PARALLELISM)
                .with(JobOption.PACKETS_TOPIC, PACKETS_TOPIC)
                .with(JobOption.CONNTRACK_INPUT, false)
                .with(JobOption.FLOW_ROWS, policy)
                .with(JobOption.FLOW_ROWS_SAMPLE, 0)
                // No periodic updates within the capture (98 s): a flow still open at the end of the
                // bounded input ends at its first pending timer, which with 10 s updates is one update
                // time or the next depending on how far the last watermark before the end got, so it
                // fell into one 10 s window or the next from run to run (seen here: a window's setup
                // p50 differed between two runs). Without them its only timer is its expiry deadline,
                // fixed by its packets: the same window in every run.
                .with(JobOption.UPDATE_INTERVAL_S, 3600);
    }
}
