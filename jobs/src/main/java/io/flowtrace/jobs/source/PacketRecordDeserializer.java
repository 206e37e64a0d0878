package io.flowtrace.jobs.source;

import io.flowtrace.avro.AvroLengthGuard;
import io.flowtrace.avro.DeadLetter;
import io.flowtrace.avro.DeadLetterStage;
import io.flowtrace.avro.PacketEvent;
import io.flowtrace.avro.mapping.PacketEvents;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.avro.message.BinaryMessageDecoder;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.EitherTypeInfo;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.types.Either;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Turns every Kafka record of the packets topic into either a valid {@link PacketEvent} (right) or
 * a {@link DeadLetter} (left) carrying the raw bytes, topic, partition, offset and the reason. It
 * never throws, so bad input cannot fail the job.
 *
 * <p>Decoding and validation happen here, in the source, rather than in a downstream function:
 * event-time watermarks are generated per Kafka partition only inside the source, and they need
 * the capture time, which only a decoded and validated record has (an absurd capture time must not
 * move the watermark).
 */
public final class PacketRecordDeserializer implements KafkaRecordDeserializationSchema<Either<DeadLetter, PacketEvent>> {
    private static final long serialVersionUID = 1L;
    /** Avro single-object encoding marker (specification, "Single-object encoding"). */
    private static final byte MAGIC_0 = (byte) 0xC3;
    private static final byte MAGIC_1 = 0x01;
    private static final int HEADER_BYTES = 10;
    private static final AvroLengthGuard LENGTHS = AvroLengthGuard.of(PacketEvent.getClassSchema());

    private transient BinaryMessageDecoder<PacketEvent> decoder;

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<Either<DeadLetter, PacketEvent>> out) {
        byte[] value = record.value();
        if (value == null) {
            out.collect(Either.Left(deadLetter(record, DeadLetterStage.DECODE, "null value (tombstone)", null)));
            return;
        }
        PacketEvent packet;
        try {
            LENGTHS.checkSingleObject(value); // a length bomb is a dead letter, with or without Avro's -D limits
            packet = decoder().decode(value);
        } catch (IOException | RuntimeException e) {
            // The boundary of untrusted input: whatever Avro throws on these bytes is the record's
            // fault (bad header, unknown fingerprint, truncated or corrupt datum), kept with its class.
            out.collect(Either.Left(deadLetter(record, DeadLetterStage.DECODE, String.valueOf(e.getMessage()), e)));
            return;
        }
        String invalid = PacketEvents.invalidReason(packet);
        if (invalid != null) {
            out.collect(Either.Left(deadLetter(record, DeadLetterStage.VALIDATE, invalid, null)));
            return;
        }
        out.collect(Either.Right(packet));
    }

    static DeadLetter deadLetter(ConsumerRecord<byte[], byte[]> record, DeadLetterStage stage, String reason, Exception e) {
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
                .setSchemaFingerprint(fingerprint(value))
                .setJobTimeMs(System.currentTimeMillis())
                .build();
    }

    /** The writer-schema fingerprint of an intact single-object header (little-endian, bytes 2..9), else null. */
    static Long fingerprint(byte[] value) {
        if (value.length < HEADER_BYTES || value[0] != MAGIC_0 || value[1] != MAGIC_1) {
            return null;
        }
        return ByteBuffer.wrap(value, 2, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    @Override
    public TypeInformation<Either<DeadLetter, PacketEvent>> getProducedType() {
        return new EitherTypeInfo<>(new AvroTypeInfo<>(DeadLetter.class), new AvroTypeInfo<>(PacketEvent.class));
    }

    private BinaryMessageDecoder<PacketEvent> decoder() {
        if (decoder == null) {
            decoder = PacketEvent.getDecoder();
        }
        return decoder;
    }
}
