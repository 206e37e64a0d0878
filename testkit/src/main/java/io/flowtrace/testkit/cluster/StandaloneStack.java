package io.flowtrace.testkit.cluster;

import io.flowtrace.testkit.Postgres;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The whole pipeline's infrastructure as separate processes, for a test class: a Kafka broker
 * process ({@link KafkaServer}), PostgreSQL ({@link Postgres}: zonky's server process under
 * {@code unshare -U}) and a Flink standalone session cluster ({@link FlinkCluster}) of one JobManager
 * and {@code taskManagers} TaskManagers. Register with {@code @RegisterExtension static final
 * StandaloneStack STACK = new StandaloneStack(2, 1);}. {@link #withZooKeeperHa} adds a ZooKeeper
 * server process ({@link ZooKeeperServer}) and runs the cluster with ZooKeeper high availability, so
 * a JobManager killed and started again recovers its jobs. Everything is stopped by PID after the
 * class, whether its tests passed or not, and by a shutdown hook if the test JVM itself is stopped.
 */
public final class StandaloneStack implements BeforeAllCallback, AfterAllCallback {
    private static final Logger LOG = LoggerFactory.getLogger(StandaloneStack.class);

    private final int taskManagers;
    private final int slotsPerTaskManager;
    private final Map<String, String> flinkConfig;
    private final boolean zooKeeperHa;
    private final Postgres postgres = new Postgres();
    private Path home;
    private KafkaServer kafka;
    private ZooKeeperServer zooKeeper;
    private FlinkCluster flink;
    private Thread hook;

    public StandaloneStack(int taskManagers, int slotsPerTaskManager) {
        this(taskManagers, slotsPerTaskManager, Map.of());
    }

    public StandaloneStack(int taskManagers, int slotsPerTaskManager, Map<String, String> flinkConfig) {
        this(taskManagers, slotsPerTaskManager, flinkConfig, false);
    }

    private StandaloneStack(
            int taskManagers, int slotsPerTaskManager, Map<String, String> flinkConfig, boolean zooKeeperHa) {
        this.taskManagers = taskManagers;
        this.slotsPerTaskManager = slotsPerTaskManager;
        this.flinkConfig = flinkConfig;
        this.zooKeeperHa = zooKeeperHa;
    }

    /** The same stack with a ZooKeeper server process and Flink's ZooKeeper high availability on it. */
    public static StandaloneStack withZooKeeperHa(int taskManagers, int slotsPerTaskManager) {
        return new StandaloneStack(taskManagers, slotsPerTaskManager, Map.of(), true);
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        home = Files.createTempDirectory("flowtrace-cluster-");
        hook = new Thread(this::stopQuietly, "standalone-stack-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        long started = System.nanoTime();
        // The broker runs on the kafka_2.13 jars of this JVM's classpath (testkit's dependencies), in its own JVM.
        kafka = new KafkaServer(home.resolve("kafka"), System.getProperty("java.class.path"));
        Map<String, String> config = new LinkedHashMap<>();
        if (zooKeeperHa) {
            zooKeeper = new ZooKeeperServer(FlinkDistribution.fromSystemProperties(), home.resolve("zookeeper"));
            config.putAll(ZooKeeperHa.settings(zooKeeper, home.resolve("flink/ha")));
        }
        config.putAll(flinkConfig);
        flink = new FlinkCluster(
                FlinkDistribution.fromSystemProperties(), home.resolve("flink"), slotsPerTaskManager, config);
        // They start at once (each waits for itself): on a loaded 2-core machine that halves the wait.
        CompletableFuture<Void> broker = CompletableFuture.runAsync(() -> unchecked(kafka::start));
        CompletableFuture<Void> database = CompletableFuture.runAsync(() -> unchecked(postgres::start));
        if (zooKeeper != null) {
            zooKeeper.start(); // before the JobManager, which elects itself leader there
        }
        flink.start(taskManagers);
        broker.join();
        database.join();
        LOG.info(
                "standalone stack up in {} ms: Kafka {}, PostgreSQL port {}, Flink {} ({} TaskManagers{}), home {}",
                (System.nanoTime() - started) / 1_000_000,
                kafka.bootstrapServers(),
                postgres.port(),
                flink.restUrl(),
                taskManagers,
                zooKeeper == null ? "" : ", ZooKeeper HA at " + zooKeeper.quorum(),
                home);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        stopQuietly();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down: the hook runs (or ran) anyway
        }
    }

    private synchronized void stopQuietly() {
        try {
            if (flink != null) {
                flink.close();
            }
        } catch (Exception e) {
            LOG.warn("stopping Flink: {}", e.toString());
        }
        try {
            if (zooKeeper != null) {
                zooKeeper.close();
            }
        } catch (Exception e) {
            LOG.warn("stopping ZooKeeper: {}", e.toString());
        }
        try {
            if (kafka != null) {
                kafka.close();
            }
        } catch (Exception e) {
            LOG.warn("stopping Kafka: {}", e.toString());
        }
        try {
            postgres.close();
        } catch (IOException e) {
            LOG.warn("stopping PostgreSQL: {}", e.toString());
        }
        LOG.info("standalone stack stopped; logs kept in {}", home);
    }

    private interface Start {
        void run() throws Exception;
    }

    private static void unchecked(Start start) {
        try {
            start.run();
        } catch (Exception e) {
            throw new CompletionException(e);
        }
    }

    public KafkaServer kafka() {
        return kafka;
    }

    /** The ZooKeeper server of a {@link #withZooKeeperHa} stack, else null. */
    public ZooKeeperServer zooKeeper() {
        return zooKeeper;
    }

    public Postgres postgres() {
        return postgres;
    }

    public FlinkCluster flink() {
        return flink;
    }

    public Path home() {
        return home;
    }

    /** The agent as {@code ./flowtrace agent} runs it: cli/target's jar and lib/ (system property flowtrace.agentHome). */
    public static String agentClasspath() {
        String dir = System.getProperty("flowtrace.agentHome");
        if (dir == null) {
            throw new IllegalStateException("system property flowtrace.agentHome is not set");
        }
        Path target = Path.of(dir).toAbsolutePath().normalize();
        try (var files = Files.list(target)) {
            Path jar = files.filter(p -> p.getFileName().toString().matches("flowtrace-cli-.*\\.jar")
                            && !p.getFileName().toString().endsWith("-tests.jar"))
                    .findFirst()
                    .orElseThrow(() ->
                            new IllegalStateException("no command line jar in " + target + ": build the cli module"));
            return jar + File.pathSeparator + target.resolve("lib") + File.separator + "*";
        } catch (IOException e) {
            throw new IllegalStateException("cannot list " + target, e);
        }
    }
}
