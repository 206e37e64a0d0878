package io.flowtrace.jobs.input;

import io.flowtrace.avro.ConntrackEvent;
import io.flowtrace.avro.ConntrackLoss;
import io.flowtrace.avro.ConntrackSource;
import io.flowtrace.avro.DeadLetter;
import io.flowtrace.avro.DeadLetterStage;
import io.flowtrace.avro.SingleObjectCodec;
import io.flowtrace.avro.mapping.ConntrackEvents;
import io.flowtrace.core.conntrack.KernelFeatures;
import io.flowtrace.core.conntrack.NetlinkSizer;
import io.flowtrace.jobs.conntrack.ConntrackSample;
import io.flowtrace.jobs.join.CtFacts;
import java.io.IOException;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.EitherTypeInfo;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;
import org.apache.flink.api.java.typeutils.TypeExtractor;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.types.Either;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The conntrack topic's records → a sized {@link ConntrackSample} (right) or a {@link DeadLetter}
 * (left), like {@link PacketRecordDeserializer}: never throws. The topic carries two contracts; the
 * single-object header's fingerprint says which (docs/schemas.md): {@code ConntrackEvent} is decoded,
 * validated ({@link ConntrackEvents#invalidReason}) and sized here ({@link ConntrackEvents#size}, for
 * the configured kernel features); {@code ConntrackLoss} becomes a loss sample; any other fingerprint,
 * a bad header or a corrupt datum is a DECODE dead letter.
 */
public final class ConntrackRecordDeserializer
        implements KafkaRecordDeserializationSchema<Either<DeadLetter, ConntrackSample>> {
    private static final long serialVersionUID = 1L;

    private final String kernelFeatures;
    private transient KernelFeatures features;
    private transient NetlinkSizer sizer;
    private transient SingleObjectCodec<ConntrackEvent> events;
    private transient SingleObjectCodec<ConntrackLoss> losses;

    /** @param kernelFeatures the {@code conntrack-kernel-features} spec (checked here, so a typo fails at build time) */
    public ConntrackRecordDeserializer(String kernelFeatures) {
        ConntrackEvents.parseFeatures(kernelFeatures);
        this.kernelFeatures = kernelFeatures;
    }

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<Either<DeadLetter, ConntrackSample>> out) {
        byte[] value = record.value();
        if (value == null) {
            out.collect(Either.Left(PacketRecordDeserializer.deadLetter(
                    record, DeadLetterStage.DECODE, "null value (tombstone)", null)));
            return;
        }
        try {
            if (losses().isWriterOf(value)) {
                ConntrackLoss loss = losses().decode(value);
                String invalid = ConntrackEvents.invalidReason(loss);
                if (invalid != null) {
                    out.collect(Either.Left(PacketRecordDeserializer.deadLetter(
                            record, DeadLetterStage.VALIDATE, "ConntrackLoss: " + invalid, null)));
                    return;
                }
                out.collect(Either.Right(ConntrackSample.loss(
                        loss.getVantage().getAgentId(),
                        loss.getVantage().getInterfaceName(),
                        loss.getTimeNs(),
                        loss.getEnobufsCount())));
                return;
            }
            // ConntrackEvent, or whatever else: the decoder names an unknown fingerprint or a bad header.
            ConntrackEvent event = events().decode(value);
            String invalid = ConntrackEvents.invalidReason(event);
            if (invalid != null) {
                out.collect(Either.Left(
                        PacketRecordDeserializer.deadLetter(record, DeadLetterStage.VALIDATE, invalid, null)));
                return;
            }
            ConntrackEvents.Sizes sizes = ConntrackEvents.size(event, features(), sizer());
            ConntrackSample sample = ConntrackSample.event(
                    event.getVantage().getAgentId(),
                    event.getVantage().getInterfaceName(),
                    ConntrackEvents.timeNanos(event),
                    kind(event),
                    sizes.exactBytes(),
                    sizes.estimatedBytes(),
                    sizes.truesizeBytes(),
                    event.getSource() == ConntrackSource.NETLINK);
            sample.join = CtFacts.of(event);
            out.collect(Either.Right(sample));
        } catch (IOException | RuntimeException e) {
            // Untrusted input: whatever decoding or sizing throws on these bytes is the record's fault.
            out.collect(Either.Left(PacketRecordDeserializer.deadLetter(
                    record, DeadLetterStage.DECODE, String.valueOf(e.getMessage()), e)));
        }
    }

    private static byte kind(ConntrackEvent event) {
        return switch (event.getEventType()) {
            case NEW -> ConntrackSample.NEW;
            case UPDATE -> ConntrackSample.UPDATE;
            case DESTROY -> ConntrackSample.DESTROY;
            default ->
                throw new IllegalArgumentException("event type " + event.getEventType()); // rejected by validation
        };
    }

    @Override
    public TypeInformation<Either<DeadLetter, ConntrackSample>> getProducedType() {
        return new EitherTypeInfo<>(new AvroTypeInfo<>(DeadLetter.class), (PojoTypeInfo<ConntrackSample>)
                TypeExtractor.createTypeInfo(ConntrackSample.class));
    }

    private KernelFeatures features() {
        if (features == null) {
            features = ConntrackEvents.parseFeatures(kernelFeatures);
        }
        return features;
    }

    private NetlinkSizer sizer() {
        if (sizer == null) {
            sizer = new NetlinkSizer();
        }
        return sizer;
    }

    private SingleObjectCodec<ConntrackEvent> events() {
        if (events == null) {
            events = SingleObjectCodec.of(ConntrackEvent.class);
        }
        return events;
    }

    private SingleObjectCodec<ConntrackLoss> losses() {
        if (losses == null) {
            losses = SingleObjectCodec.of(ConntrackLoss.class);
        }
        return losses;
    }
}
