package io.flowtrace.jobs.reliability;

import io.flowtrace.jobs.FlowtraceJob;
import io.flowtrace.jobs.config.JobConfig;
import io.flowtrace.testkit.KafkaBroker;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.executiongraph.AccessExecutionGraph;
import org.apache.flink.runtime.executiongraph.ErrorInfo;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Submitting a job to the class's MiniCluster and steering it: checkpoints, waiting, failures seen. */
final class JobControl {
    private static final Logger LOG = LoggerFactory.getLogger(JobControl.class);
    /** Generous: a loaded 2-core CI machine runs several JVMs at once. */
    static final Duration JOB_TIMEOUT = Duration.ofMinutes(8);

    private final MiniCluster cluster;
    private final KafkaBroker kafka;
    private final java.util.List<JobClient> submitted = new java.util.ArrayList<>();

    JobControl(MiniCluster cluster, KafkaBroker kafka) {
        this.cluster = cluster;
        this.kafka = kafka;
    }

    /** Builds the job into a fresh environment of the job's own Flink settings plus {@code extra}, and submits it. */
    JobClient submit(JobConfig config, FlowtraceJob job, String name, Map<String, String> extra) throws Exception {
        Configuration flink = FlowtraceJob.flinkConfiguration(config);
        extra.forEach(flink::setString);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(flink);
        job.build(env);
        JobClient client = env.executeAsync(name);
        submitted.add(client);
        LOG.info("submitted {} as {}", name, client.getJobID());
        return client;
    }

    /** Cancels what a failed test left running, so that the next test finds free slots. */
    void cancelUnfinished() {
        for (JobClient client : submitted) {
            if (!client.getJobExecutionResult().isDone()) {
                try {
                    client.cancel().get(1, TimeUnit.MINUTES);
                    client.getJobExecutionResult().handle((r, e) -> null).get(2, TimeUnit.MINUTES);
                    LOG.warn("cancelled job {} left running by a failed test", client.getJobID());
                } catch (Exception e) {
                    LOG.warn("cannot cancel job {}: {}", client.getJobID(), e.toString());
                }
            }
        }
    }

    JobExecutionResult await(JobClient client) throws Exception {
        return client.getJobExecutionResult().get(JOB_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Triggers a checkpoint and waits for it; returns its path. */
    String checkpoint(JobID job) throws Exception {
        return cluster.triggerCheckpoint(job).get(2, TimeUnit.MINUTES);
    }

    long completedCheckpoints(JobID job) throws Exception {
        return graph(job).getCheckpointStatsSnapshot().getCounts().getNumberOfCompletedCheckpoints();
    }

    /** The last failure the job recovered from (or failed with), null when it never failed. */
    ErrorInfo lastFailure(JobID job) throws Exception {
        return graph(job).getFailureInfo();
    }

    AccessExecutionGraph graph(JobID job) throws Exception {
        return cluster.getExecutionGraph(job).get(1, TimeUnit.MINUTES);
    }

    MiniCluster cluster() {
        return cluster;
    }

    /**
     * Triggers checkpoints until the group has committed {@code offsets} (the source commits the
     * offsets of a checkpoint when it completes): afterwards the last completed checkpoint holds
     * everything up to these offsets, processed. Returns the number of checkpoints taken.
     */
    int checkpointUntilCommitted(JobID job, String group, Map<TopicPartition, Long> offsets) throws Exception {
        long deadline = System.nanoTime() + JOB_TIMEOUT.toNanos();
        int taken = 0;
        while (!committedOffsets(group).equals(offsets)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "group " + group + " did not commit " + offsets + ", has " + committedOffsets(group));
            }
            if (taken > 0 && taken % 20 == 0) {
                LOG.info(
                        "{} checkpoints taken, group {} has {}, waiting for {}",
                        taken,
                        group,
                        committedOffsets(group),
                        offsets);
            }
            try {
                checkpoint(job);
                taken++;
            } catch (java.util.concurrent.ExecutionException e) {
                // Not yet running (initialising, deploying tasks): try again.
                LOG.debug("checkpoint not taken yet: {}", e.getCause().toString());
            }
            Thread.sleep(200); // the offset commit follows the checkpoint's completion asynchronously
        }
        return taken;
    }

    /** With periodic checkpoints: waits until the group has committed {@code offsets}. */
    void awaitCommitted(String group, Map<TopicPartition, Long> offsets) throws InterruptedException {
        poll("group " + group + " committing " + offsets, JOB_TIMEOUT, () -> {
            try {
                return committedOffsets(group).equals(offsets);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    Map<TopicPartition, Long> committedOffsets(String group) throws Exception {
        try (Admin admin = Admin.create(kafka.clientProperties())) {
            Map<TopicPartition, Long> out = new HashMap<>();
            for (Map.Entry<TopicPartition, OffsetAndMetadata> e : admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata()
                    .get(1, TimeUnit.MINUTES)
                    .entrySet()) {
                if (e.getValue() != null) {
                    out.put(e.getKey(), e.getValue().offset());
                }
            }
            return out;
        }
    }

    /**
     * For jobs with manual checkpoints only: a daemon that triggers one every {@code everyMs} until the
     * job ends (a finished bounded job waits for a final checkpoint to commit its Kafka transactions).
     * Triggers that fail while the job restarts or finishes are expected and ignored.
     */
    Thread checkpointUntilDone(JobClient client, long everyMs) {
        Thread t = new Thread(
                () -> {
                    while (!client.getJobExecutionResult().isDone()) {
                        try {
                            cluster.triggerCheckpoint(client.getJobID()).get(30, TimeUnit.SECONDS);
                        } catch (Exception e) {
                            LOG.debug("checkpoint not taken: {}", e.toString());
                        }
                        try {
                            Thread.sleep(everyMs);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                },
                "checkpointer-" + client.getJobID());
        t.setDaemon(true);
        t.start();
        return t;
    }

    /**
     * Keeps {@code count} TaskManagers registered, as a Kubernetes deployment restarts a TaskManager
     * pod whose process exited: a daemon that starts a new one whenever fewer are connected. Returns
     * a counter of the TaskManagers it had to start.
     */
    java.util.concurrent.atomic.AtomicInteger superviseTaskManagers(int count, JobClient until) {
        java.util.concurrent.atomic.AtomicInteger started = new java.util.concurrent.atomic.AtomicInteger();
        Thread t = new Thread(
                () -> {
                    while (!until.getJobExecutionResult().isDone()) {
                        try {
                            int connected = cluster.getResourceOverview()
                                    .get(30, TimeUnit.SECONDS)
                                    .getNumberTaskManagers();
                            for (int i = connected; i < count; i++) {
                                cluster.startTaskManager();
                                started.incrementAndGet();
                                LOG.warn(
                                        "a TaskManager was gone ({} of {} registered): started a replacement",
                                        connected,
                                        count);
                            }
                            Thread.sleep(1000);
                        } catch (InterruptedException e) {
                            return;
                        } catch (Exception e) {
                            LOG.warn("TaskManager supervision: {}", e.toString());
                        }
                    }
                },
                "tm-supervisor-" + until.getJobID());
        t.setDaemon(true);
        t.start();
        return started;
    }

    static void poll(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out after " + timeout + " waiting for " + what);
            }
            Thread.sleep(100);
        }
    }
}
