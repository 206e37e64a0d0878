package io.flowtrace.jobs.input;

import io.flowtrace.avro.DeadLetter;
import io.flowtrace.avro.DeadLetterStage;
import io.flowtrace.avro.OpenVpnBatch;
import io.flowtrace.avro.PacketEvent;
import io.flowtrace.avro.SingleObjectCodec;
import io.flowtrace.avro.mapping.OpenVpnBatches;
import io.flowtrace.avro.mapping.PacketBatchHeader;
import io.flowtrace.avro.mapping.PacketBatches;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.jobs.flow.FlowBatch;
import io.flowtrace.jobs.flow.FlowBatchTypeInfo;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.EitherTypeInfo;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.types.Either;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Turns every Kafka record of the packets topic into either a {@link FlowBatch} (right) or a
 * {@link DeadLetter} (left) carrying the raw bytes, topic, partition, offset, the reason and the
 * packets it held. It never throws, so bad input cannot fail the job. The topic carries two
 * contracts, told apart by the single-object fingerprint (docs/schemas.md):
 *
 * <ul>
 *   <li>{@code PacketBatch}: only the header is read ({@link PacketBatchHeader}, no packet is
 *       decoded here): its vantage, endpoints, base time and packet count are validated, and a
 *       record whose Kafka key is not the flow key of its header is refused. The packets are
 *       decoded and validated once, in the flow function, which drops a bad packet alone.
 *   <li>{@code PacketEvent}: decoded and validated as a whole, as before batches existed.
 *   <li>{@code OpenVpnBatch}: decoded and its header validated ({@link OpenVpnBatches#invalidReason});
 *       the job routes it to the OpenVPN analysis, which validates its packets.
 * </ul>
 *
 * <p>Decoding and validation happen here, in the source, rather than in a downstream function:
 * event-time watermarks are generated per Kafka partition only inside the source, and they need
 * the capture time, which only a validated header has (an absurd capture time must not move the
 * watermark). A batch's event time is its base time, the capture time of its first packet.
 */
public final class PacketRecordDeserializer implements KafkaRecordDeserializationSchema<Either<DeadLetter, FlowBatch>> {
    private static final long serialVersionUID = 1L;
    private static final long NANOS_PER_MS = 1_000_000L;

    private transient SingleObjectCodec<PacketEvent> events;
    private transient SingleObjectCodec<OpenVpnBatch> openVpnBatches;
    private transient DecodedPacket scratch;

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<Either<DeadLetter, FlowBatch>> out) {
        byte[] value = record.value();
        if (value == null) {
            out.collect(Either.Left(deadLetter(record, DeadLetterStage.DECODE, "null value (tombstone)", null, null)));
            return;
        }
        long fingerprint = PacketBatches.fingerprintOf(value);
        if (fingerprint == PacketBatches.FINGERPRINT) {
            batch(record, value, out);
        } else if (OpenVpnBatches.isOpenVpnBatch(fingerprint)) {
            openVpn(record, value, out);
        } else {
            event(record, value, out);
        }
    }

    private void batch(
            ConsumerRecord<byte[], byte[]> record, byte[] value, Collector<Either<DeadLetter, FlowBatch>> out) {
        PacketBatchHeader header;
        try {
            header = PacketBatchHeader.read(value);
        } catch (PacketBatchHeader.MalformedBatchException | RuntimeException e) {
            // untrusted bytes: whatever the header walk refuses is the record's fault, kept with its class
            out.collect(
                    Either.Left(deadLetter(record, DeadLetterStage.DECODE, String.valueOf(e.getMessage()), e, null)));
            return;
        }
        int claimed = (int) Math.min(header.claimedPackets, Integer.MAX_VALUE);
        String invalid = header.invalidReason(System.currentTimeMillis() * NANOS_PER_MS, PacketBatches.MAX_PACKETS);
        keyedBatch(record, invalid, invalid == null ? header.flowKey() : null, header.baseTimeNs, claimed, out);
    }

    private void openVpn(
            ConsumerRecord<byte[], byte[]> record, byte[] value, Collector<Either<DeadLetter, FlowBatch>> out) {
        OpenVpnBatch batch;
        try {
            batch = openVpnBatches().decode(value); // lengths checked first, as for PacketEvent
        } catch (IOException | RuntimeException e) {
            out.collect(
                    Either.Left(deadLetter(record, DeadLetterStage.DECODE, String.valueOf(e.getMessage()), e, null)));
            return;
        }
        String invalid = OpenVpnBatches.invalidReason(batch, System.currentTimeMillis() * NANOS_PER_MS);
        String key = invalid == null ? OpenVpnBatches.flowKey(batch) : null;
        keyedBatch(
                record, invalid, key, batch.getBaseTimeNs(), batch.getPackets().size(), out);
    }

    /**
     * A batch whose header was read (a PacketBatch's or an OpenVpnBatch's): a dead letter when the
     * header is invalid or the Kafka key is not the flow of its endpoints, else the batch.
     *
     * @param invalid why the header is invalid, or null
     * @param key the flow of the header's endpoints (null when invalid)
     * @param packets the packets the header claims
     */
    private static void keyedBatch(
            ConsumerRecord<byte[], byte[]> record,
            String invalid,
            String key,
            long baseTimeNs,
            int packets,
            Collector<Either<DeadLetter, FlowBatch>> out) {
        if (invalid == null && record.key() != null) {
            String recordKey = new String(record.key(), StandardCharsets.UTF_8);
            if (!recordKey.equals(key)) {
                invalid = "Kafka key '" + recordKey + "' is not the flow of the batch's endpoints '" + key + "'";
            }
        }
        if (invalid != null) {
            out.collect(Either.Left(deadLetter(record, DeadLetterStage.VALIDATE, invalid, null, packets)));
            return;
        }
        out.collect(Either.Right(flowBatch(record, key, baseTimeNs, packets)));
    }

    /** The record's value, unchanged, with the key and event time its header or event gave. */
    private static FlowBatch flowBatch(ConsumerRecord<byte[], byte[]> record, String key, long timeNs, int packets) {
        return new FlowBatch(
                key,
                Math.floorDiv(timeNs, NANOS_PER_MS),
                packets,
                record.topic(),
                record.partition(),
                record.offset(),
                record.timestamp(),
                record.key(),
                record.value());
    }

    private void event(
            ConsumerRecord<byte[], byte[]> record, byte[] value, Collector<Either<DeadLetter, FlowBatch>> out) {
        PacketEvent packet;
        try {
            // a length bomb is a dead letter, with or without Avro's -D limits (the codec checks lengths first)
            packet = events().decode(value);
        } catch (IOException | RuntimeException e) {
            // The boundary of untrusted input: whatever Avro throws on these bytes is the record's
            // fault (bad header, unknown fingerprint, truncated or corrupt datum), kept with its class.
            out.collect(Either.Left(deadLetter(
                    record,
                    DeadLetterStage.DECODE,
                    String.valueOf(e.getMessage()),
                    e,
                    PacketBatches.fingerprintOf(value) == PacketBatches.EVENT_FINGERPRINT ? 1 : null)));
            return;
        }
        String invalid = PacketEvents.invalidReason(packet);
        if (invalid != null) {
            out.collect(Either.Left(deadLetter(record, DeadLetterStage.VALIDATE, invalid, null, 1)));
            return;
        }
        if (scratch == null) {
            scratch = new DecodedPacket();
        }
        PacketEvents.fromAvro(packet, scratch);
        String key = PacketEvents.flowKey(PacketEvents.vantagePoint(packet.getVantage()), scratch);
        out.collect(Either.Right(flowBatch(record, key, packet.getCaptureTimeNs(), 1)));
    }

    /** A dead letter of a record that is not a packet contract (the conntrack topic's records). */
    static DeadLetter deadLetter(
            ConsumerRecord<byte[], byte[]> record, DeadLetterStage stage, String reason, Exception e) {
        return deadLetter(record, stage, reason, e, null);
    }

    static DeadLetter deadLetter(
            ConsumerRecord<byte[], byte[]> record, DeadLetterStage stage, String reason, Exception e, Integer packets) {
        byte[] value = record.value() == null ? new byte[0] : record.value();
        return DeadLetter.newBuilder()
                .setTopic(record.topic())
                .setPartition(record.partition())
                .setOffset(record.offset())
                .setTimestampMs(record.timestamp())
                .setReason(reason)
                .setKey(record.key() == null ? null : ByteBuffer.wrap(record.key()))
                .setRaw(ByteBuffer.wrap(value))
                .setStage(stage)
                .setErrorClass(e == null ? null : e.getClass().getName())
                .setSchemaFingerprint(SingleObjectCodec.fingerprintOrNull(value))
                .setJobTimeMs(System.currentTimeMillis())
                .setPackets(packets)
                .build();
    }

    @Override
    public TypeInformation<Either<DeadLetter, FlowBatch>> getProducedType() {
        return new EitherTypeInfo<>(new AvroTypeInfo<>(DeadLetter.class), FlowBatchTypeInfo.INSTANCE);
    }

    private SingleObjectCodec<OpenVpnBatch> openVpnBatches() {
        if (openVpnBatches == null) {
            openVpnBatches = OpenVpnBatches.codec();
        }
        return openVpnBatches;
    }

    private SingleObjectCodec<PacketEvent> events() {
        if (events == null) {
            events = SingleObjectCodec.of(PacketEvent.class);
        }
        return events;
    }
}
