package io.flowtrace.jobs.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.flowtrace.jobs.config.JobOption;
import io.flowtrace.testkit.cluster.FlinkCluster;
import io.flowtrace.testkit.cluster.JavaProcess;
import io.flowtrace.testkit.cluster.StandaloneStack;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Outages of the job's dependencies while it runs on the standalone cluster, fed by the agent
 * process: PostgreSQL stopped for {@value #PG_OUTAGE_S} s, the Kafka broker stopped for
 * {@value #BROKER_DOWN_S} s, and a rescale 2 → 3 from a savepoint. No TaskManager process may die,
 * and afterwards the output equals {@code flowtrace analyze --json} of the input
 * (docs/reliability.md, "Real cluster").
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterOutagesITCase {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterOutagesITCase.class);
    static final int PG_OUTAGE_S = 60;
    static final int BROKER_DOWN_S = 20;

    @RegisterExtension
    static final StandaloneStack STACK = new StandaloneStack(2, 1);

    @Test
    @Order(1)
    void postgresStoppedFor60sKillsNoTaskManagerAndLosesNothing() throws Exception {
        ClusterRun run = new ClusterRun(STACK, "pgstop").capture(StandaloneClusterITCase.CAPTURE, "cl");
        Map<String, JsonNode> offline = run.start();
        List<JavaProcess> agents = run.startAgents(StandaloneClusterITCase.PACE);
        FlinkCluster flink = STACK.flink();
        FlinkCluster.await("flow rows", Duration.ofMinutes(2), () -> run.count("flow_summary") > 0);
        List<JavaProcess> taskManagers = List.copyOf(flink.taskManagers().values());
        STACK.postgres().stopServer();
        long stopped = System.nanoTime();
        while (System.nanoTime() - stopped < PG_OUTAGE_S * 1_000_000_000L) {
            assertThat(taskManagers)
                    .as("TaskManager processes during the PostgreSQL outage")
                    .allMatch(JavaProcess::isAlive);
            Thread.sleep(1000);
        }
        STACK.postgres().restartServer();
        long restarts = flink.restarts(run.jobId);
        LOG.info("PostgreSQL was down {} s; job restarts so far {}", PG_OUTAGE_S, restarts);

        run.finish(agents, Duration.ofMinutes(3), Duration.ofMinutes(4));
        assertThat(taskManagers).as("TaskManager processes after the outage").allMatch(JavaProcess::isAlive);
        assertThat(flink.rest("/overview").get("taskmanagers").asInt()).isEqualTo(2);
        run.assertFlowRowsEqualTheOfflineAnalysis(offline);
        run.assertWindowsAddUp(offline.size());
        run.assertCommittedFlowRecords(offline);
    }

    /**
     * Rescale 2 → 3 from a savepoint: stopped mid-stream while the agent still publishes, a third
     * TaskManager added, the same jar resubmitted with {@code -s SAVEPOINT --parallelism 3}; the
     * keyed flow state is redistributed over three subtasks and the result must not change.
     */
    @Test
    @Order(3)
    void rescaleFromTwoToThreeFromASavepointGivesTheSameResult() throws Exception {
        ClusterRun run = new ClusterRun(STACK, "rescale").capture(StandaloneClusterITCase.CAPTURE, "cl");
        Map<String, JsonNode> offline = run.start();
        FlinkCluster flink = STACK.flink();
        flink.startTaskManager(); // the third slot, idle until the rescaled job
        flink.awaitTaskManagers(3, Duration.ofMinutes(3));
        List<JavaProcess> agents = run.startAgents(2); // ≈ 49 s of replay: the savepoint falls mid-stream
        run.awaitMidStream();
        String savepoint = run.stopWithSavepoint();
        assertThat(agents.get(0).isAlive())
                .as("the agent is still publishing at the savepoint")
                .isTrue();
        run.with(JobOption.PARALLELISM, 3);
        run.submit(savepoint);
        FlinkCluster.await("the rescaled job running", Duration.ofMinutes(3), () -> flink.allTasksRunning(run.jobId));
        for (JsonNode vertex : flink.rest("/jobs/" + run.jobId).get("vertices")) {
            assertThat(vertex.get("parallelism").asInt())
                    .as("parallelism of %s", vertex.get("name").asText())
                    .isEqualTo(3);
        }

        run.finish(agents, Duration.ofMinutes(3), Duration.ofMinutes(3));
        run.assertFlowRowsEqualTheOfflineAnalysis(offline);
        run.assertWindowsAddUp(offline.size());
        run.assertCommittedFlowRecords(offline);
    }

    /**
     * The Kafka broker process stopped (SIGTERM, as bin/kafka-server-stop.sh) for {@value #BROKER_DOWN_S}
     * s while the agent publishes, then started again on the same port and log directory. The agent
     * spools meanwhile and replays its spool afterwards (docs/agent.md); the job's sources and
     * transactional sinks reconnect; nothing may be lost or committed twice.
     */
    @Test
    @Order(2)
    void brokerRestartedMidStreamLosesNothing() throws Exception {
        ClusterRun run = new ClusterRun(STACK, "brokerrestart").capture(StandaloneClusterITCase.CAPTURE, "cl");
        Map<String, JsonNode> offline = run.start();
        List<JavaProcess> agents = run.startAgents(2); // ≈ 49 s of replay: the outage falls mid-stream
        FlinkCluster flink = STACK.flink();
        run.awaitMidStream();
        assertThat(agents.get(0).isAlive())
                .as("the agent is still publishing when the broker stops")
                .isTrue();
        List<JavaProcess> taskManagers = List.copyOf(flink.taskManagers().values());
        STACK.kafka().stop();
        Thread.sleep(BROKER_DOWN_S * 1000L);
        long restarted = System.nanoTime();
        STACK.kafka().start();
        long brokerUpMs = (System.nanoTime() - restarted) / 1_000_000;
        FlinkCluster.await(
                "the job running after the broker restart",
                Duration.ofMinutes(3),
                () -> flink.allTasksRunning(run.jobId));
        long checkpointAfter = flink.latestCompletedCheckpoint(run.jobId);
        FlinkCluster.await(
                "a checkpoint completed after the broker restart",
                Duration.ofMinutes(3),
                () -> flink.latestCompletedCheckpoint(run.jobId) > checkpointAfter);
        LOG.info(
                "broker down {} s, answering {} ms after its start; a checkpoint completed {} ms after its start; {} job restarts",
                BROKER_DOWN_S,
                brokerUpMs,
                (System.nanoTime() - restarted) / 1_000_000,
                flink.restarts(run.jobId));

        ClusterRun.awaitAgents(agents, Duration.ofMinutes(4));
        run.awaitConsumed(Duration.ofMinutes(4));
        LOG.info(
                "broker restart: every packet consumed and committed {} ms after the broker's start",
                (System.nanoTime() - restarted) / 1_000_000);
        run.drain();
        assertThat(taskManagers)
                .as("TaskManager processes after the broker restart")
                .allMatch(JavaProcess::isAlive);
        run.assertFlowRowsEqualTheOfflineAnalysis(offline);
        run.assertWindowsAddUp(offline.size());
        run.assertCommittedFlowRecords(offline);
    }
}
