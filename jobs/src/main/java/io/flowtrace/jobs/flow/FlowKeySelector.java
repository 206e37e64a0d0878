package io.flowtrace.jobs.flow;

import org.apache.flink.api.java.functions.KeySelector;

/**
 * Keys a packet record by its canonical bidirectional flow key at its vantage point, which the
 * source read from the record's header ({@link FlowBatch#key}): both directions of a connection,
 * and every instance of a reused port pair, meet in one keyed state. Flink calls a key selector
 * once when it partitions a record and again in the keyed operator, so it only reads a field.
 */
public final class FlowKeySelector implements KeySelector<FlowBatch, String> {
    private static final long serialVersionUID = 1L;

    @Override
    public String getKey(FlowBatch batch) {
        return batch.key;
    }
}
