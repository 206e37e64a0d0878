package io.flowtrace.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.jobs.JobConfig;
import io.flowtrace.testkit.ListeningSockets;
import io.flowtrace.testkit.ListeningSockets.Listener;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every socket the demo listens on is bound to 127.0.0.1, as the kernel reports it (/proc/net/tcp*):
 * the Kafka broker and its KRaft controller, PostgreSQL (its own process) and the MiniCluster with the
 * demo's Flink configuration (REST, RPC, blob server, shuffle).
 */
class ServicesListenOnLoopbackITCase {

    @Test
    void kafkaPostgresAndTheMiniClusterListenOnLoopbackOnly(@TempDir Path tmp) throws Exception {
        List<Listener> before = ListeningSockets.ofThisProcess();
        try (EmbeddedServices services = new EmbeddedServices()) {
            services.start(RuntimeDir.open(tmp.resolve("private")));
            JobConfig config = DemoJob.config(
                    services.bootstrapServers(),
                    services.jdbcUrl(),
                    services.passwordFile(),
                    tmp.resolve("checkpoints"),
                    1);
            MiniCluster flink = new MiniCluster(new MiniClusterConfiguration.Builder()
                    .setConfiguration(DemoJob.flinkConfiguration(config))
                    .setNumTaskManagers(1)
                    .setNumSlotsPerTaskManager(1)
                    .build());
            flink.start();
            try {
                List<Listener> opened = new ArrayList<>(ListeningSockets.ofThisProcess());
                opened.removeAll(before);
                int kafkaPort = Integer.parseInt(services.bootstrapServers().replaceAll(".*:", ""));
                int restPort = flink.getRestAddress().get().getPort();
                assertThat(opened).extracting(Listener::port).contains(kafkaPort, restPort);
                // broker + controller at least; Flink's REST and whatever else the MiniCluster opens
                assertThat(opened).hasSizeGreaterThanOrEqualTo(3);
                assertThat(opened)
                        .allSatisfy(
                                l -> assertThat(l.isLoopbackV4()).as("%s", l).isTrue());

                List<Listener> postgres = ListeningSockets.onPort(services.postgresPort());
                assertThat(postgres).isNotEmpty();
                assertThat(postgres)
                        .allSatisfy(l -> assertThat(l.isLoopbackV4())
                                .as("PostgreSQL %s", l)
                                .isTrue());
            } finally {
                flink.close();
            }
        }
    }
}
