package io.flowtrace.testkit.cluster;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** The config.yaml entries of a cluster with ZooKeeper high availability ({@link ZooKeeperServer}). */
public final class ZooKeeperHa {
    private ZooKeeperHa() {}

    /**
     * Flink's ZooKeeper high availability on {@code quorum}: the leaders (ResourceManager, Dispatcher,
     * JobMasters, REST) elected in ZooKeeper, the submitted jobs and the pointers to their completed
     * checkpoints kept there, the files those point to (job graphs, jars, checkpoint metadata) in
     * {@code storageDir}. A JobManager started after the leader died recovers every job from its
     * latest completed checkpoint. The ZooKeeper session of a killed JobManager keeps its leader
     * nodes until the session times out, so the session timeout bounds how soon a successor can
     * lead: 10 s, as the TaskManager heartbeat timeout of {@link FlinkCluster}, instead of Flink's default 60 s (and
     * a connection timeout below it, as Curator expects).
     *
     * <p>The server takes SASL sessions only: every Flink process (JobManager, TaskManagers, the CLI, which
     * all read the leaders there) loads the server's {@code Client} JAAS section through
     * {@code env.java.opts.all} (Flink's ZooKeeper SASL login context is {@code Client} by default), and
     * Flink creates its znodes with the {@code creator} ACL: only the authenticated user may read or change them.
     */
    public static Map<String, String> settings(ZooKeeperServer zooKeeper, Path storageDir) {
        Map<String, String> c = new LinkedHashMap<>();
        c.put("high-availability.type", "zookeeper");
        c.put("high-availability.zookeeper.quorum", zooKeeper.quorum());
        c.put("high-availability.zookeeper.client.acl", "creator");
        c.put("zookeeper.sasl.disable", "false");
        c.put("env.java.opts.all", String.join(" ", FlinkJvmOptions.JAVA_17) + " " + zooKeeper.clientJvmOption());
        c.put(
                "high-availability.storageDir",
                storageDir.toAbsolutePath().toUri().toString());
        c.put("high-availability.cluster-id", "/flowtrace");
        c.put("high-availability.zookeeper.client.session-timeout", "10000");
        c.put("high-availability.zookeeper.client.connection-timeout", "5000");
        return c;
    }
}
