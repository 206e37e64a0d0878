package io.flowtrace.agent.batch;

/**
 * Per-flow batching as the agent runs it: the limits, and which clock drives the linger
 * (docs/agent.md, "Per-flow batches"). {@code null} where a BatchOptions is expected means batching
 * is off: one PacketEvent per packet.
 */
public record BatchOptions(BatchLimits limits, LingerClock clock) {
    public enum LingerClock {
        /**
         * File replay: a batch's linger runs in capture time, so a batch never spans more than the
         * linger of capture time (whatever the replay speed) and its packets are no more out of order
         * against other flows' in a partition than the linger; the batches do not depend on how fast
         * the machine replays.
         */
        CAPTURE_TIME,
        /**
         * Live capture: the linger runs on the agent's monotonic clock with a timer, so a batch waits
         * at most the linger even when its flow (or the whole capture) goes quiet.
         */
        WALL_CLOCK
    }

    public BatchOptions {
        if (limits == null || clock == null) {
            throw new IllegalArgumentException("batch limits and clock are required");
        }
    }
}
