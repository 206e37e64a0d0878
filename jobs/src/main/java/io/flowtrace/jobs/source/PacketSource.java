package io.flowtrace.jobs.source;

import io.flowtrace.avro.DeadLetter;
import io.flowtrace.jobs.flow.FlowBatch;
import io.flowtrace.jobs.JobConfig;
import io.flowtrace.jobs.JobOption;
import java.util.Locale;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.KafkaSourceBuilder;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.types.Either;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;

/** The KafkaSource of the packets topic, from the job configuration. */
public final class PacketSource {
    private PacketSource() {
    }

    public static KafkaSource<Either<DeadLetter, FlowBatch>> fromConfig(JobConfig config) {
        KafkaSourceBuilder<Either<DeadLetter, FlowBatch>> b = KafkaSource.<Either<DeadLetter, FlowBatch>>builder()
                .setBootstrapServers(config.get(JobOption.BOOTSTRAP_SERVERS))
                .setProperties(config.kafkaProperties())
                .setTopics(config.get(JobOption.PACKETS_TOPIC))
                .setGroupId(config.get(JobOption.GROUP_ID))
                .setStartingOffsets(startOffsets(config.get(JobOption.START_OFFSETS)))
                .setDeserializer(new PacketRecordDeserializer())
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
            default -> throw new IllegalArgumentException(
                    "--start-offsets must be committed, earliest, latest or timestamp:<ms>, got '" + spec + "'");
        };
    }
}
