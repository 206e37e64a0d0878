package io.flowtrace.cli.agent;

import io.flowtrace.agent.kafka.SpoolingPublisher;
import io.flowtrace.agent.metrics.AgentMetrics;
import io.flowtrace.cli.console.ExitCodes;
import java.io.PrintStream;
import java.util.Locale;

/**
 * The agents' exit statuses (their --help and docs/agent.md list them). An agent that ends with
 * records Kafka has not acknowledged must say so: they are safe in the spool, not delivered.
 */
public final class AgentExit {
    static final int OK = 0;
    static final int INPUT = ExitCodes.INPUT;
    static final int USAGE = ExitCodes.USAGE;
    /** Records were dropped because the spool was full: lost. */
    static final int DROPPED = 3;
    /** Records remain in the spool: not delivered (yet), a later start with the same --spool-dir sends them first. */
    public static final int SPOOLED = 4;

    // The agents' exitCodeList entries (annotation values: one constant each).
    static final String CODE_OK = "0:every record read was acknowledged by Kafka (143 after SIGTERM once that is so)";
    static final String CODE_INPUT = "1:the input could not be read, or the agent failed (spool or capture I/O)";
    static final String CODE_USAGE = "2:invalid command line, unknown bootstrap servers, or a corrupt spool";
    static final String CODE_DROPPED = "3:records were dropped because the spool was full (lost)";
    static final String CODE_SPOOLED = "4:records remain in the spool, not delivered: Kafka did not take them within"
            + " --shutdown-timeout; a later start with the same --spool-dir sends them first (also after SIGTERM)";

    private AgentExit() {}

    /**
     * The delivery status once the publisher is closed, with one line on {@code err} for what was
     * not delivered.
     */
    static int delivery(
            AgentMetrics metrics, SpoolingPublisher publisher, String items, long timeoutSeconds, PrintStream err) {
        long dropped = metrics.dropped.sum();
        long pending = publisher.spoolPendingRecords();
        if (pending > 0) {
            err.printf(
                    Locale.ROOT,
                    "flowtrace agent: NOT DELIVERED: %,d %s in %,d records remain in the spool %s (Kafka did not"
                            + " take them within --shutdown-timeout %d s); a later start with --spool-dir %s sends"
                            + " them first%n",
                    publisher.spoolPendingPackets(),
                    items,
                    pending,
                    publisher.spoolDirectory(),
                    timeoutSeconds,
                    publisher.spoolDirectory());
        }
        if (dropped > 0) {
            err.printf(
                    Locale.ROOT,
                    "flowtrace agent: LOST: %,d %s in %,d records were dropped because the spool %s was full%n",
                    dropped,
                    items,
                    metrics.droppedBatches.sum(),
                    publisher.spoolDirectory());
            return DROPPED;
        }
        return pending > 0 ? SPOOLED : OK;
    }

    /** The input's status when it failed, else the delivery status. */
    static int combine(int input, int delivery) {
        return input != OK ? input : delivery;
    }
}
