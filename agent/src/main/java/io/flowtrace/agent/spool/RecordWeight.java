package io.flowtrace.agent.spool;

/**
 * How many packets or events one spooled record's value carries: 1 for a single PacketEvent or
 * conntrack event, the packet count for a batch of one flow's packets. The spool counts both so
 * that the metrics and the summary can say packets and records.
 */
@FunctionalInterface
public interface RecordWeight {
    RecordWeight ONE = (value, offset, length) -> 1;

    int items(byte[] value, int offset, int length);
}
