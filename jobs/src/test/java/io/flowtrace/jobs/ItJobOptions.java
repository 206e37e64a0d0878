package io.flowtrace.jobs;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The job options an end-to-end test starts from: every topic named {@code PREFIX.<what>} (the
 * defaults with "flowtrace" replaced), a bounded replay from the earliest offsets, the exactly-once
 * Kafka sink committing on checkpoints every 500 ms (the final one at end of input commits the rest),
 * hashmap state, no restarts (any failure fails the test), PostgreSQL as the embedded server's user.
 * Tests override what they are about.
 */
public final class ItJobOptions {
    private static final List<JobOption> TOPICS = List.of(JobOption.PACKETS_TOPIC, JobOption.CONNTRACK_TOPIC,
            JobOption.FLOWS_TOPIC, JobOption.TCP_EVENTS_TOPIC, JobOption.SERVICE_WINDOWS_TOPIC,
            JobOption.VANTAGE_WINDOWS_TOPIC, JobOption.CONNTRACK_BUDGETS_TOPIC, JobOption.DEAD_LETTERS_TOPIC);

    private ItJobOptions() {
    }

    public static Map<String, String> bounded(String prefix, String bootstrapServers, String jdbcUrl, String jdbcUser,
            Path checkpoints, int parallelism) {
        Map<String, String> o = new HashMap<>();
        o.put("bootstrap-servers", bootstrapServers);
        for (JobOption topic : TOPICS) {
            o.put(topic.key(), prefix + topic.defaultValue().substring("flowtrace".length()));
        }
        o.put("group-id", prefix);
        o.put("transactional-id-prefix", prefix);
        o.put("start-offsets", "earliest");
        o.put("bounded", "true");
        o.put("transaction-timeout-ms", "60000");
        o.put("jdbc-url", jdbcUrl);
        o.put("jdbc-user", jdbcUser);
        o.put("jdbc-password-env", "");
        o.put("jdbc-batch-interval-ms", "200");
        o.put("checkpoint-interval-ms", "500");
        o.put("checkpoint-dir", checkpoints.toUri().toString());
        o.put("state-backend", "hashmap");
        o.put("restart-attempts", "0");
        o.put("parallelism", Integer.toString(parallelism));
        return o;
    }
}
