package io.flowtrace.agent.spool;

import java.util.List;

/**
 * Records read from the head of a {@link DiskSpool}, in append order; {@link DiskSpool#commit}
 * removes them (or a prefix) once Kafka has acknowledged them.
 */
public record SpoolBatch(List<SpoolRecord> records) {
    public SpoolBatch {
        records = List.copyOf(records);
    }

    public int size() {
        return records.size();
    }

    public boolean isEmpty() {
        return records.isEmpty();
    }
}
