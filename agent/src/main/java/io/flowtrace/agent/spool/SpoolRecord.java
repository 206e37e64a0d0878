package io.flowtrace.agent.spool;

/**
 * One spooled Kafka record: the key and value bytes exactly as they would have been sent, the
 * packets or events it carries ({@link RecordWeight}), and the spool position just after it
 * ({@link DiskSpool#commit(SpoolBatch, int)} needs it).
 */
public record SpoolRecord(byte[] key, byte[] value, int items, long segment, long endOffset) {}
