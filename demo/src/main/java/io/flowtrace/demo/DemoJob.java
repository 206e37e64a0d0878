package io.flowtrace.demo;

import io.flowtrace.jobs.FlowtraceJob;
import io.flowtrace.jobs.config.JobConfig;
import io.flowtrace.jobs.config.JobOption;
import io.flowtrace.jobs.input.InputSources;
import io.flowtrace.jobs.output.JobSinks;
import io.flowtrace.jobs.output.OpenVpnSinks;
import io.flowtrace.jobs.output.PostgresSinks;
import io.flowtrace.testkit.FlinkTls;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The real job ({@link FlowtraceJob}, the class {@code flink run} starts) on a local MiniCluster in
 * bounded mode: it reads the topics up to the offsets that are latest when it starts, and the end of
 * input fires every flow's final record, so the run drains by itself. Progress: records in (the
 * consumer group's committed offsets against the topics' end offsets; committed on checkpoints) and
 * records out (rows in the sink tables).
 */
final class DemoJob {
    static final int PARTITIONS = 2;
    static final String GROUP = "flowtrace-demo";

    private DemoJob() {}

    static JobConfig config(
            String bootstrapServers, String jdbcUrl, Path jdbcPasswordFile, Path checkpoints, int parallelism) {
        Map<String, String> o = new HashMap<>();
        o.put("bootstrap-servers", bootstrapServers);
        o.put("group-id", GROUP);
        o.put("start-offsets", "earliest");
        o.put("bounded", "true");
        o.put(
                "transactional-id-prefix",
                "flowtrace-demo-" + ProcessHandle.current().pid());
        o.put("transaction-timeout-ms", "60000");
        o.put("jdbc-url", jdbcUrl);
        o.put("jdbc-user", EmbeddedServices.OWNER);
        o.put("jdbc-password-env", "");
        o.put("jdbc-password-file", jdbcPasswordFile.toString());
        o.put("jdbc-batch-interval-ms", "200");
        // The exactly-once Kafka sinks commit on checkpoints; the final one at end of input commits the rest.
        o.put("checkpoint-interval-ms", "1000");
        o.put("checkpoint-dir", checkpoints.toUri().toString());
        o.put("state-backend", "hashmap");
        o.put("restart-attempts", "0");
        // The bundled conntrack burst lasts 0.43 s: 100 ms windows draw it as a curve, not one 1 s point.
        o.put("conntrack-short-window-ms", "100");
        o.put("parallelism", Integer.toString(parallelism));
        return JobConfig.of(o);
    }

    static List<String> topics(JobConfig c) {
        return List.of(
                c.get(JobOption.PACKETS_TOPIC),
                c.get(JobOption.CONNTRACK_TOPIC),
                c.get(JobOption.FLOWS_TOPIC),
                c.get(JobOption.TCP_EVENTS_TOPIC),
                c.get(JobOption.SERVICE_WINDOWS_TOPIC),
                c.get(JobOption.VANTAGE_WINDOWS_TOPIC),
                c.get(JobOption.CONNTRACK_BUDGETS_TOPIC),
                c.get(JobOption.DEAD_LETTERS_TOPIC));
    }

    /**
     * The MiniCluster's configuration: the job's, with every listener on 127.0.0.1 only (the REST endpoint
     * on a free port, the blob server, RPC, data exchange) and all of them behind mutual TLS from the run's
     * keystore ({@link FlinkTls}): every local user reaches 127.0.0.1, and a MiniCluster always starts its
     * REST endpoint, which takes a JobGraph with jars at {@code POST /jobs} ({@code web.submit.enable: false}
     * does not turn that off). The demo itself needs none of them from outside: it submits in-process and
     * reads its progress from Kafka and PostgreSQL.
     */
    static Configuration flinkConfiguration(JobConfig config, FlinkTls tls) {
        Configuration flink = FlowtraceJob.flinkConfiguration(config);
        flink.set(RestOptions.BIND_PORT, "0");
        flink.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
        flink.set(RestOptions.ADDRESS, "127.0.0.1");
        // the blob server (and the RPC endpoints of a cluster's processes) bind to the bind-host options
        flink.set(JobManagerOptions.BIND_HOST, "127.0.0.1");
        flink.set(TaskManagerOptions.BIND_HOST, "127.0.0.1");
        tls.flinkConfiguration().forEach(flink::setString);
        return flink;
    }

    /**
     * Runs the job to its end, showing progress; returns the wall time in seconds.
     *
     * @param inputRecords the Kafka records in the input topics (a packet record is a batch of one flow's packets)
     * @param input what the agents published, for the progress line ("15,123 packets + 449 conntrack events")
     */
    static double run(JobConfig config, FlinkTls tls, DataSource db, StatusLine status, long inputRecords, String input)
            throws Exception {
        PostgresSinks.applySchema(config);
        Configuration flink = flinkConfiguration(config, tls);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(flink);
        new FlowtraceJob(
                        config,
                        InputSources.packets(config),
                        InputSources.conntrack(config),
                        JobSinks.fromConfig(config))
                .withOpenVpnSinks(OpenVpnSinks.fromConfig(config))
                .build(env);
        StatusLine.Step step = status.step("flink job");
        // until the first poll answers (the sink tables may not be readable for the first seconds)
        step.update(String.format(Locale.ROOT, "in: %s (%,d Kafka records)  out: starting", input, inputRecords));
        long started = System.nanoTime();
        JobClient job = env.executeAsync("flowtrace-demo");
        CompletableFuture<?> result = job.getJobExecutionResult();
        List<String> inputs = List.of(config.get(JobOption.PACKETS_TOPIC), config.get(JobOption.CONNTRACK_TOPIC));
        try (Admin admin = Admin.create(
                Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.get(JobOption.BOOTSTRAP_SERVERS)))) {
            while (true) {
                try {
                    result.get(500, TimeUnit.MILLISECONDS);
                    break;
                } catch (TimeoutException e) {
                    step.update(String.format(
                            Locale.ROOT, "in: %s  out: %s", consumed(admin, inputs, input, inputRecords), rows(db)));
                }
            }
        } catch (ExecutionException e) {
            throw new IllegalStateException("the Flink job failed: " + rootMessage(e), e.getCause());
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        step.done(String.format(Locale.ROOT, "flink job  finished in %.1f s  out: %s", seconds, rows(db)));
        return seconds;
    }

    private static String consumed(Admin admin, List<String> topics, String input, long total) {
        try {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(GROUP)
                    .partitionsToOffsetAndMetadata()
                    .get(2, TimeUnit.SECONDS);
            long sum = 0;
            for (Map.Entry<TopicPartition, OffsetAndMetadata> e : committed.entrySet()) {
                if (topics.contains(e.getKey().topic()) && e.getValue() != null) {
                    sum += e.getValue().offset();
                }
            }
            // Kafka offsets are committed at checkpoints only: a bar of them would say 0 % while rows are
            // already out, so the input is its total, with what the last checkpoint committed beside it.
            return String.format(Locale.ROOT, "%s (%,d Kafka records, %,d committed)", input, total, sum);
        } catch (Exception e) {
            return input;
        }
    }

    /** Records in the input topics now (end offsets; nothing else writes them during the demo). */
    static long endOffsets(String bootstrapServers, List<String> topics) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
            Map<TopicPartition, OffsetSpec> request = new HashMap<>();
            for (var d : admin.describeTopics(topics).allTopicNames().get().values()) {
                d.partitions()
                        .forEach(p -> request.put(new TopicPartition(d.name(), p.partition()), OffsetSpec.latest()));
            }
            long sum = 0;
            for (var info : admin.listOffsets(request).all().get().values()) {
                sum += info.offset();
            }
            return sum;
        }
    }

    static String rows(DataSource db) {
        try (Connection c = db.getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery(
                        "SELECT (SELECT count(*) FROM flow_summary), (SELECT count(*) FROM flow_summary WHERE final),"
                                + " (SELECT count(*) FROM tcp_events), (SELECT count(*) FROM service_windows),"
                                + " (SELECT count(*) FROM conntrack_budgets), (SELECT count(*) FROM dead_letters)")) {
            r.next();
            return String.format(
                    Locale.ROOT,
                    "%,d flow rows (%,d final), %,d tcp events, %,d service windows, %,d conntrack windows,"
                            + " %,d dead letters",
                    r.getLong(1),
                    r.getLong(2),
                    r.getLong(3),
                    r.getLong(4),
                    r.getLong(5),
                    r.getLong(6));
        } catch (Exception e) {
            return "(sink tables not readable yet)";
        }
    }

    private static String rootMessage(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + ": " + root.getMessage();
    }
}
