package io.flowtrace.jobs.input;

import io.flowtrace.avro.DeadLetter;
import io.flowtrace.jobs.config.JobConfig;
import io.flowtrace.jobs.config.JobOption;
import io.flowtrace.jobs.conntrack.ConntrackSample;
import io.flowtrace.jobs.flow.FlowBatch;
import java.util.Locale;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.KafkaSourceBuilder;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.types.Either;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;

/**
 * The job's Kafka sources, from the job configuration: the packets topic (PacketBatch and
 * PacketEvent records, {@link PacketRecordDeserializer}) and the conntrack topic (ConntrackEvent and
 * ConntrackLoss, {@link ConntrackRecordDeserializer}). Both read raw bytes and never throw on a
 * record: what does not decode or validate is a dead letter (left), split off by {@link InputTriage}.
 */
public final class InputSources {
    private InputSources() {}

    public static KafkaSource<Either<DeadLetter, FlowBatch>> packets(JobConfig config) {
        return source(config, config.get(JobOption.PACKETS_TOPIC), new PacketRecordDeserializer());
    }

    public static KafkaSource<Either<DeadLetter, ConntrackSample>> conntrack(JobConfig config) {
        return source(
                config,
                config.get(JobOption.CONNTRACK_TOPIC),
                new ConntrackRecordDeserializer(config.get(JobOption.CONNTRACK_KERNEL_FEATURES)));
    }

    private static <T> KafkaSource<T> source(
            JobConfig config, String topic, KafkaRecordDeserializationSchema<T> values) {
        KafkaSourceBuilder<T> b = KafkaSource.<T>builder()
                .setBootstrapServers(config.get(JobOption.BOOTSTRAP_SERVERS))
                .setProperties(config.kafkaProperties())
                .setTopics(topic)
                .setGroupId(config.get(JobOption.GROUP_ID))
                .setStartingOffsets(startOffsets(config.get(JobOption.START_OFFSETS)))
                .setDeserializer(values)
                // Offsets are committed on checkpoints (for monitoring lag); recovery uses checkpoints.
                .setProperty("commit.offsets.on.checkpoint", "true");
        if (config.getBoolean(JobOption.BOUNDED)) {
            b.setBounded(OffsetsInitializer.latest());
        }
        return b.build();
    }

    @SuppressWarnings("deprecation") // the connector's committedOffsets still takes Kafka's OffsetResetStrategy
    static OffsetsInitializer startOffsets(String spec) {
        String s = spec.trim().toLowerCase(Locale.ROOT);
        if (s.startsWith("timestamp:")) {
            return OffsetsInitializer.timestamp(Long.parseLong(s.substring("timestamp:".length())));
        }
        return switch (s) {
            case "committed" -> OffsetsInitializer.committedOffsets(OffsetResetStrategy.EARLIEST);
            case "earliest" -> OffsetsInitializer.earliest();
            case "latest" -> OffsetsInitializer.latest();
            default ->
                throw new IllegalArgumentException(
                        "--start-offsets must be committed, earliest, latest or timestamp:<ms>, got '" + spec + "'");
        };
    }
}
