package io.flowtrace.jobs.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.testkit.cluster.FlinkDistribution;
import io.flowtrace.testkit.cluster.JavaProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job jar as built, on the classpath a Flink cluster gives it: Flink's own lib/ jars
 * (cluster/target/flink-lib) and the jar, nothing from the test classpath. A MiniCluster test shares
 * the test classpath and cannot see what the jar lacks (a test-scoped jackson-databind once left
 * Avro's schema parser without it: NoClassDefFoundError in the client, before submission).
 */
class ShadedJarClasspathITCase {
    @TempDir
    Path work;

    @Test
    void flinkLibHoldsOnlyFlinkAndLogging() throws Exception {
        List<String> jars;
        try (var files = Files.list(FlinkDistribution.fromSystemProperties().lib())) {
            jars = files.map(p -> p.getFileName().toString()).sorted().toList();
        }
        assertThat(jars)
                .anyMatch(j -> j.startsWith("flink-runtime-"))
                .anyMatch(j -> j.startsWith("flink-clients-"))
                .anyMatch(j -> j.startsWith("log4j-core-"));
        // What the job jar must bring itself: a user's cluster has none of these on its classpath.
        assertThat(jars)
                .noneMatch(j -> j.startsWith("jackson-databind-")
                        || j.startsWith("kafka-clients-")
                        || j.startsWith("postgresql-")
                        || j.startsWith("avro-")
                        || j.startsWith("flink-connector-kafka")
                        || j.startsWith("flink-connector-jdbc")
                        || j.startsWith("flink-avro"));
    }

    @Test
    void helpRunsOnFlinkJarsAndTheJobJarAlone() throws Exception {
        Path log = work.resolve("help.log");
        assertThat(runJob(log, List.of("--help")))
                .as("exit code; output in %s", log)
                .isZero();
        String out = Files.readString(log);
        assertThat(out)
                .doesNotContain("NoClassDefFoundError")
                .doesNotContain("ClassNotFoundException")
                .contains("--bootstrap-servers")
                .contains("--jdbc-url")
                .contains("--plan-only");
    }

    @Test
    void jobGraphOfTheFullPipelineBuildsOnFlinkJarsAndTheJobJarAlone() throws Exception {
        Path log = work.resolve("plan.log");
        // Realistic options: both inputs, the conntrack join, both outputs, RocksDB, checkpoints.
        List<String> options = List.of(
                "--plan-only",
                "true",
                "--bootstrap-servers",
                "127.0.0.1:9092",
                "--jdbc-url",
                "jdbc:postgresql://127.0.0.1:5432/flowtrace",
                "--conntrack-input",
                "true",
                "--conntrack-join",
                "true",
                "--kafka-output",
                "true",
                "--postgres-output",
                "true",
                "--state-backend",
                "rocksdb",
                "--checkpoint-dir",
                work.resolve("checkpoints").toUri().toString(),
                "--parallelism",
                "2");
        int exit = runJob(log, options);
        String out = Files.readString(log);
        assertThat(exit).as("exit code; output:%n%s", out).isZero();
        assertThat(out)
                .doesNotContain("NoClassDefFoundError")
                .doesNotContain("ClassNotFoundException")
                .contains("flowtrace job graph:");
        // Every stage and both kinds of sink of docs/job.md's pipeline are in the graph.
        for (String stage : List.of(
                "packets",
                "decode-validate",
                "flow-analysis",
                "service-windows-60s",
                "vantage-windows-10s",
                "conntrack",
                "conntrack-join",
                "flows-",
                "dead-letters-",
                "KafkaSink",
                "JdbcSink")) {
            assertThat(out).as("the job graph names %s", stage).contains(stage);
        }
    }

    private int runJob(Path log, List<String> options) throws Exception {
        FlinkDistribution flink = FlinkDistribution.fromSystemProperties();
        List<String> command = new ArrayList<>(List.of(
                JavaProcess.javaBinary(),
                "-cp",
                flink.classpath() + java.io.File.pathSeparator + flink.jobJar(),
                "io.flowtrace.jobs.FlowtraceJob"));
        command.addAll(options);
        return JavaProcess.run("flowtrace-job " + options.get(0), command, Map.of(), log, Duration.ofMinutes(3));
    }
}
