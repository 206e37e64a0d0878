package io.flowtrace.jobs.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.flink.connector.kafka.source.metrics.KafkaSourceReaderMetrics;
import org.apache.flink.runtime.metrics.MetricNames;
import org.apache.kafka.clients.consumer.internals.FetchMetricsRegistry;
import org.apache.kafka.common.MetricNameTemplate;
import org.junit.jupiter.api.Test;

/**
 * deploy/grafana/prometheus/job-health.json, the job-health dashboard on a Prometheus datasource: its
 * shape (every panel a PromQL query on the datasource variable, as Grafana imports it), and every metric
 * a query names exists: Flink's own metric names as Flink 2.2.1's runtime declares them
 * ({@link MetricNames}, the checkpoint statistics tracker's gauges), the Kafka consumer's as
 * kafka-clients declares them (reported by the Kafka source under KafkaSourceReader.KafkaConsumer), the
 * job's own counters as its operators register them, the agents' as their endpoint exports them, each
 * under the scope Flink's Prometheus reporter gives it ({@code flink_<scope>_<name>}, dots and dashes
 * to underscores).
 */
class JobHealthDashboardTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern METRIC = Pattern.compile("\\b(flink_[A-Za-z0-9_]+|flowtrace_agent_[a-z_]+)");

    private static JsonNode dashboard() throws IOException {
        return JSON.readTree(
                RepoFiles.path("deploy/grafana/prometheus/job-health.json").toFile());
    }

    private static List<String> expressions(JsonNode d) {
        List<String> out = new ArrayList<>();
        for (JsonNode p : d.path("panels")) {
            for (JsonNode t : p.path("targets")) {
                out.add(t.path("expr").asText());
            }
        }
        return out;
    }

    @Test
    void everyPanelIsAPromQlQueryOnThePrometheusVariable() throws IOException {
        JsonNode d = dashboard();
        assertThat(d.path("uid").asText()).isEqualTo("flowtrace-job-health");
        assertThat(d.path("schemaVersion").asInt()).isEqualTo(39);
        JsonNode datasourceVariable = null;
        for (JsonNode v : d.path("templating").path("list")) {
            if (v.path("type").asText().equals("datasource")) {
                datasourceVariable = v;
            }
        }
        assertThat(datasourceVariable).as("a datasource variable").isNotNull();
        assertThat(datasourceVariable.path("query").asText()).isEqualTo("prometheus");
        String ref = "${" + datasourceVariable.path("name").asText() + "}";
        Set<Integer> ids = new TreeSet<>();
        for (JsonNode p : d.path("panels")) {
            assertThat(ids.add(p.path("id").asInt()))
                    .as("panel id %s unique", p.path("id"))
                    .isTrue();
            assertThat(p.path("datasource").path("type").asText()).isEqualTo("prometheus");
            assertThat(p.path("datasource").path("uid").asText()).isEqualTo(ref);
            assertThat(p.path("targets")).as(p.path("title").asText()).isNotEmpty();
            for (JsonNode t : p.path("targets")) {
                assertThat(t.path("expr").asText()).as(p.path("title").asText()).isNotBlank();
                assertThat(t.path("datasource").path("uid").asText()).isEqualTo(ref);
            }
        }
        // what the issue asks the dashboard to show, each by the metric that shows it
        String all = String.join("\n", expressions(d));
        for (String wanted : List.of(
                "records_lag_max",
                "backPressuredTimeMsPerSecond",
                "lastCheckpointDuration",
                "lastCheckpointSize",
                "numRestarts",
                "deadLetters")) {
            assertThat(all).as("a panel on %s", wanted).contains(wanted);
        }
    }

    @Test
    void everyMetricAQueryNamesExistsInFlinkKafkaTheJobOrTheAgents() throws Exception {
        Set<String> known = knownMetrics();
        int checked = 0;
        for (String expr : expressions(dashboard())) {
            Matcher m = METRIC.matcher(expr);
            int inThis = 0;
            while (m.find()) {
                assertThat(known).as("metric %s of %s", m.group(1), expr).contains(m.group(1));
                inThis++;
            }
            assertThat(inThis).as("metrics named in %s", expr).isPositive();
            checked += inThis;
        }
        assertThat(checked).isGreaterThanOrEqualTo(10);
    }

    /** The check knows the names it should reject: a misspelt Flink metric and a Kafka one without its group. */
    @Test
    void theNameCheckRejectsNamesFlinkDoesNotHave() throws Exception {
        Set<String> known = knownMetrics();
        assertThat(known)
                .contains("flink_jobmanager_job_numRestarts")
                .doesNotContain(
                        "flink_jobmanager_job_numRestart",
                        "flink_taskmanager_job_task_operator_records_lag_max",
                        "flink_jobmanager_job_lastCheckpointDurationMs");
    }

    /** Every name Flink's Prometheus reporter can give the metrics the dashboard may use. */
    private static Set<String> knownMetrics() throws Exception {
        Set<String> flink = new TreeSet<>(stringConstants(MetricNames.class));
        Set<String> checkpoints = new TreeSet<>(
                stringConstants(Class.forName("org.apache.flink.runtime.checkpoint.DefaultCheckpointStatsTracker")));
        Set<String> job = jobCounters();
        assertThat(job).as("the job's counters").contains("deadLetters");
        Set<String> out = new TreeSet<>();
        for (String name : flink) {
            out.add("flink_jobmanager_job_" + name);
            out.add("flink_taskmanager_job_task_" + name);
            out.add("flink_taskmanager_job_task_operator_" + name);
        }
        checkpoints.forEach(name -> out.add("flink_jobmanager_job_" + name));
        job.forEach(name -> out.add("flink_taskmanager_job_task_operator_" + name));
        String kafka = "flink_taskmanager_job_task_operator_"
                + KafkaSourceReaderMetrics.KAFKA_SOURCE_READER_METRIC_GROUP + "_"
                + KafkaSourceReaderMetrics.KAFKA_CONSUMER_METRIC_GROUP + "_";
        for (MetricNameTemplate t : new FetchMetricsRegistry().getAllTemplates()) {
            out.add(kafka + t.name().replace('-', '_'));
        }
        out.addAll(agentMetrics());
        return out;
    }

    private static List<String> stringConstants(Class<?> type) throws IllegalAccessException {
        List<String> out = new ArrayList<>();
        for (Field f : type.getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class) {
                f.setAccessible(true);
                out.add((String) f.get(null));
            }
        }
        return out;
    }

    /** The counters the job's operators register: {@code getMetricGroup().counter("name")} in jobs' main sources. */
    private static Set<String> jobCounters() throws IOException {
        Pattern counter = Pattern.compile("getMetricGroup\\(\\)\\s*\\.counter\\(\"([A-Za-z]+)\"");
        Set<String> out = new TreeSet<>();
        try (Stream<Path> files = Files.walk(RepoFiles.path("jobs/src/main/java"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                Matcher m = counter.matcher(Files.readString(f));
                while (m.find()) {
                    out.add(m.group(1));
                }
            }
        }
        return out;
    }

    /**
     * The agents' families as their endpoint declares them (agent's MetricsEndpoint): a counter is
     * exposed with _total, as the Prometheus text format names counters.
     */
    private static Set<String> agentMetrics() throws IOException {
        String source =
                Files.readString(RepoFiles.path("agent/src/main/java/io/flowtrace/agent/metrics/MetricsEndpoint.java"));
        Set<String> out = new TreeSet<>();
        Matcher counters =
                Pattern.compile("counter\\(\\s*\"(flowtrace_agent_[a-z_]+)\"").matcher(source);
        while (counters.find()) {
            out.add(counters.group(1) + "_total");
        }
        Matcher gauges =
                Pattern.compile("\\.name\\(\"(flowtrace_agent_[a-z_]+)\"\\)").matcher(source);
        while (gauges.find()) {
            out.add(gauges.group(1));
        }
        // records, batches, batch_flushes, malformed, skipped, failed, source, spool_pending_records
        assertThat(out).as("agent families read from MetricsEndpoint").hasSizeGreaterThanOrEqualTo(8);
        return out;
    }
}
