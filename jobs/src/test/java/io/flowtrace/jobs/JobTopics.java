package io.flowtrace.jobs;

import io.flowtrace.jobs.config.JobConfig;
import io.flowtrace.jobs.config.JobOption;
import io.flowtrace.testkit.KafkaClientSide;
import java.util.ArrayList;
import java.util.List;

/**
 * The Kafka topics a test's job reads and writes, named by its {@link JobConfig}: a test creates
 * them with one call instead of listing every topic option again.
 */
public final class JobTopics {
    /** The outputs of the TCP and conntrack pipeline (no OpenVPN topics). */
    public static final List<JobOption> OUTPUTS = List.of(
            JobOption.FLOWS_TOPIC,
            JobOption.TCP_EVENTS_TOPIC,
            JobOption.SERVICE_WINDOWS_TOPIC,
            JobOption.VANTAGE_WINDOWS_TOPIC,
            JobOption.DEAD_LETTERS_TOPIC,
            JobOption.CONNTRACK_BUDGETS_TOPIC);

    /** Its inputs (packets, conntrack) and {@link #OUTPUTS}. */
    public static final List<JobOption> ALL;

    static {
        List<JobOption> all = new ArrayList<>(List.of(JobOption.PACKETS_TOPIC, JobOption.CONNTRACK_TOPIC));
        all.addAll(OUTPUTS);
        ALL = List.copyOf(all);
    }

    private JobTopics() {}

    /** Creates every topic of {@link #ALL} as {@code config} names it, with {@code partitions} partitions. */
    public static void create(KafkaClientSide kafka, int partitions, JobConfig config) {
        create(kafka, partitions, config, ALL);
    }

    /** Creates the topics {@code options} name in {@code config}. */
    public static void create(KafkaClientSide kafka, int partitions, JobConfig config, List<JobOption> options) {
        kafka.createTopics(partitions, options.stream().map(config::get).toArray(String[]::new));
    }
}
