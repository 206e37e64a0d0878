package io.flowtrace.testkit;

import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.IsolationLevel;

/**
 * What a test does with a running test broker, plaintext ({@link KafkaBroker}) or SASL_SSL
 * ({@link KafkaBroker.Secured}): the same clients, told apart only by {@link #clientProperties()}.
 */
public interface KafkaClientSide {

    /** The listener clients connect to. */
    String bootstrapServers();

    /** Client properties with bootstrap.servers (and, on a secured broker, the credentials) set; add your own on top. */
    Properties clientProperties();

    /** Creates topics with the given partition count and replication factor 1; waits until they have leaders. */
    void createTopics(int partitions, String... names);

    default void createTopic(String name, int partitions) {
        createTopics(partitions, name);
    }

    /** An idempotent byte[] producer (acks=all, one request in flight); the caller closes it. */
    default KafkaProducer<byte[], byte[]> newProducer() {
        return KafkaTopics.newProducer(clientProperties());
    }

    /**
     * Every committed record of the topic, read with isolation.level=read_committed from the
     * beginning up to the last stable offset of each partition, in partition then offset order.
     * Records of aborted or still-open transactions are not returned.
     */
    default List<ConsumerRecord<byte[], byte[]>> readCommitted(String topic) {
        return KafkaTopics.readAll(clientProperties(), topic, IsolationLevel.READ_COMMITTED);
    }

    /** Every record up to the high watermark, aborted transactional records included. */
    default List<ConsumerRecord<byte[], byte[]>> readUncommitted(String topic) {
        return KafkaTopics.readAll(clientProperties(), topic, IsolationLevel.READ_UNCOMMITTED);
    }
}
