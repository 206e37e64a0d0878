package io.flowtrace.jobs;

import io.flowtrace.jobs.config.JobConfig;
import io.flowtrace.jobs.config.JobOption;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The job options an end-to-end test starts from, keyed by {@link JobOption} (so a renamed option
 * breaks the test's compilation, not its run): every topic named {@code PREFIX.<what>} (the defaults
 * with "flowtrace" replaced), a bounded replay from the earliest offsets, the exactly-once Kafka sink
 * committing on checkpoints every 500 ms (the final one at end of input commits the rest), hashmap
 * state, no restarts (any failure fails the test), PostgreSQL as the embedded server's user. Tests
 * override what they are about with {@link #with}.
 */
public final class ItJobOptions {
    private static final List<JobOption> TOPICS = JobTopics.ALL;

    private final Map<String, String> options = new HashMap<>();

    private ItJobOptions() {}

    public static ItJobOptions of(
            String prefix,
            String bootstrapServers,
            String jdbcUrl,
            String jdbcUser,
            Path checkpoints,
            int parallelism) {
        ItJobOptions o = new ItJobOptions()
                .with(JobOption.BOOTSTRAP_SERVERS, bootstrapServers)
                .with(JobOption.GROUP_ID, prefix)
                .with(JobOption.TRANSACTIONAL_ID_PREFIX, prefix)
                .with(JobOption.START_OFFSETS, "earliest")
                .with(JobOption.BOUNDED, true)
                .with(JobOption.TRANSACTION_TIMEOUT_MS, 60_000)
                .with(JobOption.JDBC_URL, jdbcUrl)
                .with(JobOption.JDBC_USER, jdbcUser)
                .with(JobOption.JDBC_PASSWORD_ENV, "")
                .with(JobOption.JDBC_BATCH_INTERVAL_MS, 200)
                .with(JobOption.CHECKPOINT_INTERVAL_MS, 500)
                .checkpoints(checkpoints)
                .with(JobOption.STATE_BACKEND, "hashmap")
                .with(JobOption.RESTART_ATTEMPTS, 0)
                // every ITCase accounts for each dead letter it caused; the rate cap is DeadLetterLimitsTest's
                .with(JobOption.DEAD_LETTERS_PER_SECOND, 1_000_000)
                .with(JobOption.PARALLELISM, parallelism);
        for (JobOption topic : TOPICS) {
            o.with(topic, prefix + topic.defaultValue().substring("flowtrace".length()));
        }
        return o;
    }

    /** The options of {@link #of} as the string map {@code JobConfig.of} and a job's arguments take. */
    public static Map<String, String> bounded(
            String prefix,
            String bootstrapServers,
            String jdbcUrl,
            String jdbcUser,
            Path checkpoints,
            int parallelism) {
        return of(prefix, bootstrapServers, jdbcUrl, jdbcUser, checkpoints, parallelism)
                .toMap();
    }

    public ItJobOptions with(JobOption option, Object value) {
        options.put(option.key(), String.valueOf(value));
        return this;
    }

    public ItJobOptions without(JobOption option) {
        options.remove(option.key());
        return this;
    }

    /** A Kafka client property passed through to the job's sources and sinks ({@code kafka.<name>}). */
    public ItJobOptions kafkaProperty(String name, String value) {
        options.put("kafka." + name, value);
        return this;
    }

    public ItJobOptions checkpoints(Path directory) {
        return with(JobOption.CHECKPOINT_DIR, directory.toUri());
    }

    /** The option's value here, else its default. */
    public String get(JobOption option) {
        return options.getOrDefault(option.key(), option.defaultValue());
    }

    /** A copy. */
    public Map<String, String> toMap() {
        return new HashMap<>(options);
    }

    public JobConfig config() {
        return JobConfig.of(toMap());
    }
}
