package io.flowtrace.testkit.cluster;

import io.flowtrace.testkit.Postgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code scripts/cluster.sh up}: the pipeline's infrastructure on this machine, as separate
 * processes bound to 127.0.0.1: a Kafka broker (SASL_SSL with SCRAM only, {@link KafkaServer}), PostgreSQL (zonky's binaries) and a Flink standalone
 * session cluster (one JobManager, N TaskManagers) from the Flink jars in cluster/target/flink-lib,
 * its REST, blob server and RPC behind mutual TLS ({@link FlinkCluster}).
 * Writes {@code HOME/cluster.env} (addresses, PIDs) once everything is up and stays in the
 * foreground until it gets SIGTERM ({@code scripts/cluster.sh down}); then it stops every process it
 * started, by PID.
 *
 * <p>With {@code ha} it also starts a ZooKeeper server process ({@link ZooKeeperServer}) and runs
 * Flink with ZooKeeper high availability; it then acts as the JobManager's supervisor (what systemd's
 * {@code Restart=always} or Kubernetes would be): when the JobManager process dies it starts a new
 * one, which recovers the running jobs from their latest checkpoints, and rewrites
 * {@code JOBMANAGER_PID} in cluster.env.
 *
 * <p>Arguments: {@code HOME TASKMANAGERS SLOTS [ha]}; system properties {@code flowtrace.flinkLib},
 * {@code flowtrace.jobJar}; the broker runs on this JVM's classpath.
 */
public final class LocalCluster {
    private LocalCluster() {}

    public static void main(String[] args) throws Exception {
        Path home = Path.of(args[0]).toAbsolutePath();
        int taskManagers = Integer.parseInt(args[1]);
        int slots = Integer.parseInt(args[2]);
        boolean ha = args.length > 3 && args[3].equals("ha");
        Files.createDirectories(home);
        KafkaServer kafka = new KafkaServer(home.resolve("kafka"), System.getProperty("java.class.path"));
        Postgres postgres = new Postgres();
        ZooKeeperServer zooKeeper =
                ha ? new ZooKeeperServer(FlinkDistribution.fromSystemProperties(), home.resolve("zookeeper")) : null;
        FlinkCluster flink = new FlinkCluster(
                FlinkDistribution.fromSystemProperties(),
                home.resolve("flink"),
                slots,
                ha ? ZooKeeperHa.settings(zooKeeper, home.resolve("flink/ha")) : Map.of());
        CountDownLatch stopped = new CountDownLatch(1);
        AtomicBoolean stopping = new AtomicBoolean();
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            stopping.set(true);
                            try {
                                flink.close();
                                if (zooKeeper != null) {
                                    zooKeeper.close();
                                }
                                kafka.close();
                                postgres.close();
                            } catch (Exception e) {
                                System.err.println("cluster: stopping failed: " + e);
                            } finally {
                                stopped.countDown();
                            }
                        },
                        "local-cluster-stop"));
        kafka.start();
        // The job's default topics (docs/job.md), two partitions each: the broker does not auto-create.
        kafka.createTopics(
                2,
                "flowtrace.packets",
                "flowtrace.conntrack",
                "flowtrace.flows",
                "flowtrace.tcp-events",
                "flowtrace.service-windows",
                "flowtrace.vantage-windows",
                "flowtrace.conntrack-budgets",
                "flowtrace.dead-letters");
        postgres.start();
        if (zooKeeper != null) {
            zooKeeper.start();
        }
        flink.start(taskManagers);
        writeEnv(home, kafka, postgres, zooKeeper, flink);
        if (ha) {
            superviseJobManager(home, kafka, postgres, zooKeeper, flink, stopping);
        }
        stopped.await();
    }

    /** Starts a new JobManager whenever the current one has died (HA: it takes over the running jobs). */
    private static void superviseJobManager(
            Path home,
            KafkaServer kafka,
            Postgres postgres,
            ZooKeeperServer zooKeeper,
            FlinkCluster flink,
            AtomicBoolean stopping) {
        Thread watchdog = new Thread(
                () -> {
                    try {
                        while (!stopping.get()) {
                            flink.jobManager().waitFor();
                            if (stopping.get()) {
                                return;
                            }
                            System.out.println("cluster: JobManager pid "
                                    + flink.jobManager().pid() + " died; starting a new one");
                            flink.startJobManager();
                            writeEnv(home, kafka, postgres, zooKeeper, flink);
                        }
                    } catch (Exception e) {
                        System.err.println("cluster: restarting the JobManager failed: " + e);
                    }
                },
                "jobmanager-supervisor");
        watchdog.setDaemon(true);
        watchdog.start();
    }

    private static void writeEnv(
            Path home, KafkaServer kafka, Postgres postgres, ZooKeeperServer zooKeeper, FlinkCluster flink)
            throws IOException {
        StringBuilder env = new StringBuilder();
        env.append("KAFKA_BOOTSTRAP=").append(kafka.bootstrapServers()).append('\n');
        // SASL_SSL/SCRAM only: the client properties with the run's password, 0600 files in the private
        // directory: an agent's --kafka-config, the job's --config (kafka.* pass-through), the CA to trust
        env.append("KAFKA_CLIENT_CONFIG=").append(kafka.clientConfigFile()).append('\n');
        env.append("KAFKA_JOB_CONFIG=").append(kafka.jobConfigFile()).append('\n');
        env.append("KAFKA_CERT=").append(kafka.certificate()).append('\n');
        // the URL without the password: the job reads it from JDBC_PASSWORD_FILE (0600, private directory)
        env.append("JDBC_URL=").append(postgres.plainJdbcUrl(Postgres.DATABASE)).append('\n');
        env.append("JDBC_USER=").append(Postgres.USER).append('\n');
        env.append("JDBC_PASSWORD_FILE=").append(postgres.passwordFile()).append('\n');
        env.append("FLINK_REST=").append(flink.restUrl()).append('\n');
        // REST asks for the client certificate: the key pair (password in FLINK_CONF_DIR's config.yaml,
        // 0600) and its certificate as PEM, for curl (scripts/cluster.sh status)
        env.append("FLINK_TLS_KEYSTORE=").append(flink.tls().keystore()).append('\n');
        env.append("FLINK_TLS_CERT=").append(flink.tls().writeCertificatePem()).append('\n');
        env.append("FLINK_CONF_DIR=").append(flink.confDir()).append('\n');
        env.append("FLINK_JAVA_OPTS=\"")
                .append(String.join(" ", flink.javaOptions()))
                .append("\"\n");
        env.append("FLINK_LIB=")
                .append(FlinkDistribution.fromSystemProperties().lib())
                .append('\n');
        env.append("KAFKA_PID=").append(kafka.process().pid()).append('\n');
        if (zooKeeper != null) {
            env.append("ZOOKEEPER_QUORUM=").append(zooKeeper.quorum()).append('\n');
            // ZooKeeper takes SASL sessions only: this JAAS file (0600) is the Client login (FLINK_JAVA_OPTS loads it)
            env.append("ZOOKEEPER_JAAS=").append(zooKeeper.clientJaasFile()).append('\n');
            env.append("ZOOKEEPER_PID=").append(zooKeeper.process().pid()).append('\n');
        }
        env.append("JOBMANAGER_PID=").append(flink.jobManager().pid()).append('\n');
        StringBuilder tms = new StringBuilder();
        flink.taskManagers()
                .values()
                .forEach(p -> tms.append(tms.length() == 0 ? "" : " ").append(p.pid()));
        env.append("TASKMANAGER_PIDS=\"").append(tms).append("\"\n");
        env.append("SUPERVISOR_PID=").append(ProcessHandle.current().pid()).append('\n');
        Path file = home.resolve("cluster.env");
        Files.writeString(home.resolve("cluster.env.tmp"), env.toString());
        Files.move(home.resolve("cluster.env.tmp"), file, StandardCopyOption.ATOMIC_MOVE);
        System.out.print(env);
    }
}
