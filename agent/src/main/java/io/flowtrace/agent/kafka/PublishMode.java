package io.flowtrace.agent.kafka;

/**
 * What {@link SpoolingPublisher} and its {@link SpoolReplay} share: whether records go to the spool
 * rather than straight to Kafka, and the shutdown under way. A switch of {@link #spooling} that must
 * not race an append or a replay is made holding this object's monitor, which the replay also waits
 * on while there is nothing to replay.
 */
final class PublishMode {
    volatile boolean spooling;
    volatile boolean closing;
    /** {@link System#nanoTime()} by which close() gives up replaying; set before {@link #closing}. */
    volatile long closeDeadline;

    PublishMode(boolean spooling) {
        this.spooling = spooling;
    }
}
