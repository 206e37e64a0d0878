package io.flowtrace.cli.agent;

import io.flowtrace.agent.batch.BatchLimits;
import io.flowtrace.agent.batch.BatchOptions;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Option;

/** {@code agent packets}' per-flow batching options (a picocli mixin; docs/agent.md, "Per-flow batches"). */
public final class BatchingOptions {
    @Option(
            names = "--batch",
            paramLabel = "on|off",
            defaultValue = "on",
            arity = "1",
            description = "publish per-flow PacketBatches (on, default) or one PacketEvent per packet (off)")
    String batch;

    @Option(
            names = "--batch-max-packets",
            paramLabel = "N",
            defaultValue = "" + BatchLimits.DEFAULT_MAX_PACKETS,
            description =
                    "packets per batch at most; 1 = one PacketEvent per packet, as --batch off (default: ${DEFAULT-VALUE})")
    int maxPackets;

    @Option(
            names = "--batch-max-bytes",
            paramLabel = "BYTES",
            defaultValue = "" + BatchLimits.DEFAULT_MAX_BYTES,
            description = "encoded bytes per batch at most (default: ${DEFAULT-VALUE})")
    int maxBytes;

    @Option(
            names = "--batch-linger-ms",
            paramLabel = "MS",
            defaultValue = "" + BatchLimits.DEFAULT_LINGER_MS,
            description = "a batch leaves this long after its first packet: capture time for a file, "
                    + "the agent's clock live (default: ${DEFAULT-VALUE})")
    long lingerMs;

    @Option(
            names = "--batch-max-open",
            paramLabel = "N",
            defaultValue = "" + BatchLimits.DEFAULT_MAX_OPEN_BATCHES,
            description =
                    "open batches (flows) at most; a new flow beyond it flushes the oldest (default: ${DEFAULT-VALUE})")
    int maxOpen;

    /**
     * The batching to run, or null for one PacketEvent per packet.
     *
     * @throws IllegalArgumentException for an impossible setting, with the option's name
     */
    BatchOptions resolve(boolean live) {
        if (!batch.equals("on") && !batch.equals("off")) {
            throw new IllegalArgumentException("--batch takes on or off, not '" + batch + "'");
        }
        if (batch.equals("off") || maxPackets == 1) {
            return null;
        }
        if (maxPackets > MAX_PACKETS) {
            throw new IllegalArgumentException("--batch-max-packets " + maxPackets + " is above " + MAX_PACKETS);
        }
        BatchLimits limits = new BatchLimits(maxPackets, maxBytes, TimeUnit.MILLISECONDS.toNanos(lingerMs), maxOpen);
        return new BatchOptions(
                limits, live ? BatchOptions.LingerClock.WALL_CLOCK : BatchOptions.LingerClock.CAPTURE_TIME);
    }

    /** A batch is one record for the job: a bound that keeps one batch's state access and dead letter small. */
    static final int MAX_PACKETS = 8192;
}
