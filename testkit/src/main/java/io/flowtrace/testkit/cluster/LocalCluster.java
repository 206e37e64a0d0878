package io.flowtrace.testkit.cluster;

import io.flowtrace.testkit.Postgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * {@code scripts/cluster.sh up}: the pipeline's infrastructure on this machine, as separate
 * processes bound to 127.0.0.1: a Kafka broker, PostgreSQL (zonky's binaries) and a Flink standalone
 * session cluster (one JobManager, N TaskManagers) from the Flink jars in cluster/target/flink-lib.
 * Writes {@code HOME/cluster.env} (addresses, PIDs) once everything is up and stays in the
 * foreground until it gets SIGTERM ({@code scripts/cluster.sh down}); then it stops every process it
 * started, by PID.
 *
 * <p>Arguments: {@code HOME TASKMANAGERS SLOTS}; system properties {@code flowtrace.flinkLib},
 * {@code flowtrace.jobJar}; the broker runs on this JVM's classpath.
 */
public final class LocalCluster {
    private LocalCluster() {
    }

    public static void main(String[] args) throws Exception {
        Path home = Path.of(args[0]).toAbsolutePath();
        int taskManagers = Integer.parseInt(args[1]);
        int slots = Integer.parseInt(args[2]);
        Files.createDirectories(home);
        KafkaServer kafka = new KafkaServer(home.resolve("kafka"), System.getProperty("java.class.path"));
        Postgres postgres = new Postgres();
        FlinkCluster flink = new FlinkCluster(FlinkDistribution.fromSystemProperties(), home.resolve("flink"), slots, Map.of());
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                flink.close();
                kafka.close();
                postgres.close();
            } catch (Exception e) {
                System.err.println("cluster: stopping failed: " + e);
            } finally {
                stopped.countDown();
            }
        }, "local-cluster-stop"));
        kafka.start();
        // The job's default topics (docs/job.md), two partitions each: the broker does not auto-create.
        kafka.createTopics(2, "flowtrace.packets", "flowtrace.conntrack", "flowtrace.flows", "flowtrace.tcp-events",
                "flowtrace.service-windows", "flowtrace.vantage-windows", "flowtrace.conntrack-budgets", "flowtrace.dead-letters");
        postgres.start();
        flink.start(taskManagers);
        StringBuilder env = new StringBuilder();
        env.append("KAFKA_BOOTSTRAP=").append(kafka.bootstrapServers()).append('\n');
        env.append("JDBC_URL=").append("jdbc:postgresql://localhost:").append(postgres.port()).append("/postgres\n");
        env.append("JDBC_USER=").append(Postgres.USER).append('\n');
        env.append("FLINK_REST=").append(flink.restUrl()).append('\n');
        env.append("FLINK_CONF_DIR=").append(flink.confDir()).append('\n');
        env.append("FLINK_JAVA_OPTS=\"").append(String.join(" ", FlinkCluster.JAVA_17_OPTIONS)).append("\"\n");
        env.append("FLINK_LIB=").append(FlinkDistribution.fromSystemProperties().lib()).append('\n');
        env.append("KAFKA_PID=").append(kafka.process().pid()).append('\n');
        env.append("JOBMANAGER_PID=").append(flink.jobManager().pid()).append('\n');
        StringBuilder tms = new StringBuilder();
        flink.taskManagers().values().forEach(p -> tms.append(tms.length() == 0 ? "" : " ").append(p.pid()));
        env.append("TASKMANAGER_PIDS=\"").append(tms).append("\"\n");
        env.append("SUPERVISOR_PID=").append(ProcessHandle.current().pid()).append('\n');
        Path file = home.resolve("cluster.env");
        Files.writeString(home.resolve("cluster.env.tmp"), env.toString());
        Files.move(home.resolve("cluster.env.tmp"), file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        System.out.print(env);
        stopped.await();
    }
}
