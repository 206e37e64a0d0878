package io.flowtrace.jobs.source;

import io.flowtrace.avro.DeadLetter;
import io.flowtrace.jobs.JobConfig;
import io.flowtrace.jobs.JobOption;
import io.flowtrace.jobs.conntrack.ConntrackSample;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.KafkaSourceBuilder;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.types.Either;

/** The KafkaSource of the conntrack topic (ConntrackEvent + ConntrackLoss), configured like {@link PacketSource}. */
public final class ConntrackKafkaSource {
    private ConntrackKafkaSource() {
    }

    public static KafkaSource<Either<DeadLetter, ConntrackSample>> fromConfig(JobConfig config) {
        KafkaSourceBuilder<Either<DeadLetter, ConntrackSample>> b = KafkaSource.<Either<DeadLetter, ConntrackSample>>builder()
                .setBootstrapServers(config.get(JobOption.BOOTSTRAP_SERVERS))
                .setProperties(config.kafkaProperties())
                .setTopics(config.get(JobOption.CONNTRACK_TOPIC))
                .setGroupId(config.get(JobOption.GROUP_ID))
                .setStartingOffsets(PacketSource.startOffsets(config.get(JobOption.START_OFFSETS)))
                .setDeserializer(new ConntrackRecordDeserializer(config.get(JobOption.CONNTRACK_KERNEL_FEATURES)))
                .setProperty("commit.offsets.on.checkpoint", "true");
        if (config.getBoolean(JobOption.BOUNDED)) {
            b.setBounded(OffsetsInitializer.latest());
        }
        return b.build();
    }
}
