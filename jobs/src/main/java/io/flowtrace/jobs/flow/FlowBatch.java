package io.flowtrace.jobs.flow;

import io.flowtrace.avro.DeadLetter;
import io.flowtrace.avro.DeadLetterStage;
import io.flowtrace.avro.mapping.PacketBatches;
import java.nio.ByteBuffer;

/**
 * The record between the packets source and the flow function: one Kafka record of the packets
 * topic, a {@code PacketBatch} or a {@code PacketEvent} (docs/schemas.md), as the source accepted
 * it. It carries the flow key and event time the source read from the record's header, and the
 * record's value unchanged: the packets are decoded once, in {@link FlowAnalysisFunction}, and the
 * network between the two moves bytes ({@code FlowBatchSerializer}), not an Avro object graph.
 *
 * <p>Mutable, and reused by nobody: the source creates one per Kafka record and no operator keeps a
 * reference after it returns (docs/job.md, "Object reuse").
 */
public final class FlowBatch {
    /** Canonical flow key (the Flink key): {@code FlowKey.canonical()} of the record's endpoints and vantage. */
    public String key;
    /** Event time of the record in ms: the batch's base capture time (its earliest packet), or the event's. */
    public long timeMs;
    /** Packets the record holds (as a batch header claims them; 1 for a PacketEvent). */
    public int packets;
    /** Kafka coordinates, for dead letters of packets rejected in the flow function. */
    public String topic;

    public int partition;
    public long offset;
    public long kafkaTimestampMs;
    /** Raw Kafka key, or null. */
    public byte[] recordKey;
    /** The Kafka value unchanged: Avro single-object encoding of a PacketBatch or a PacketEvent. */
    public byte[] value;

    public FlowBatch() {}

    public FlowBatch(
            String key,
            long timeMs,
            int packets,
            String topic,
            int partition,
            long offset,
            long kafkaTimestampMs,
            byte[] recordKey,
            byte[] value) {
        this.key = key;
        this.timeMs = timeMs;
        this.packets = packets;
        this.topic = topic;
        this.partition = partition;
        this.offset = offset;
        this.kafkaTimestampMs = kafkaTimestampMs;
        this.recordKey = recordKey;
        this.value = value;
    }

    @Override
    public String toString() {
        return "FlowBatch[" + key + ", " + packets + " packets at " + timeMs + " ms, " + topic + "/" + partition + "@"
                + offset + "]";
    }

    /** A dead letter for this record (or for {@code packets} of its packets), with its Kafka coordinates and bytes. */
    public DeadLetter deadLetter(DeadLetterStage stage, String reason, Exception e, int packets) {
        return DeadLetter.newBuilder()
                .setTopic(topic)
                .setPartition(partition)
                .setOffset(offset)
                .setTimestampMs(kafkaTimestampMs)
                .setReason(reason)
                .setKey(recordKey == null ? null : ByteBuffer.wrap(recordKey))
                .setRaw(ByteBuffer.wrap(value))
                .setStage(stage)
                .setErrorClass(e == null ? null : e.getClass().getName())
                .setSchemaFingerprint(PacketBatches.fingerprintOf(value))
                .setJobTimeMs(System.currentTimeMillis())
                .setPackets(packets)
                .build();
    }
}
