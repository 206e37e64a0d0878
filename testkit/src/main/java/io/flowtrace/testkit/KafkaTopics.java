package io.flowtrace.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * What a test does with a broker once it listens, the same for the plaintext and the SASL_SSL one:
 * create topics and wait for their leaders, produce, read a topic back. Each takes the client
 * properties (bootstrap servers and security settings) of the broker it talks to.
 */
final class KafkaTopics {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private KafkaTopics() {}

    /**
     * The broker settings one node needs: the internal topics' default replication factor 3 cannot
     * be hosted by one broker, and without these, offset commits on checkpoints and transactions
     * stall. Values must be strings: an Integer fails the config validation.
     */
    static Map<String, String> singleNodeBrokerConfig() {
        return Map.of(
                "offsets.topic.replication.factor", "1",
                "offsets.topic.num.partitions", "1",
                "transaction.state.log.replication.factor", "1",
                "transaction.state.log.min.isr", "1",
                "transaction.state.log.num.partitions", "1",
                "group.initial.rebalance.delay.ms", "0");
    }

    /** Creates topics with the given partition count and replication factor 1; waits until they have leaders. */
    static void createTopics(Admin admin, int partitions, String... names) {
        List<NewTopic> topics = new ArrayList<>();
        for (String name : names) {
            topics.add(new NewTopic(name, partitions, (short) 1));
        }
        try {
            admin.createTopics(topics).all().get();
            awaitLeaders(admin, List.of(names));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted creating topics " + List.of(names), e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot create topics " + List.of(names), e.getCause());
        }
    }

    /**
     * Topic creation returns before every partition has a leader; a producer that starts sending at
     * once sees NOT_LEADER and, with idempotence and several requests in flight, can end in
     * OUT_OF_ORDER_SEQUENCE. Wait until every partition reports a leader.
     */
    private static void awaitLeaders(Admin admin, List<String> names) throws InterruptedException, ExecutionException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!haveLeaders(admin, names)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no leader for every partition of " + names + " after 30 s");
            }
            Thread.sleep(50);
        }
    }

    private static boolean haveLeaders(Admin admin, List<String> names)
            throws InterruptedException, ExecutionException {
        try {
            return admin.describeTopics(names).allTopicNames().get().values().stream()
                    .allMatch(d -> d.partitions().stream()
                            .allMatch(p -> p.leader() != null && !p.leader().isEmpty()));
        } catch (ExecutionException e) {
            // the broker's metadata cache can lag the controller: a just-created topic is unknown for a moment
            if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                throw e;
            }
            return false;
        }
    }

    /** An idempotent byte[] producer (acks=all) over the given client properties; the caller closes it. */
    static KafkaProducer<byte[], byte[]> newProducer(Properties client) {
        Properties props = new Properties();
        props.putAll(client);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        // one request in flight: tests care about order and exactly-once more than throughput
        props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        return new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /**
     * Every record of the topic from the beginning up to each partition's end offset at the time of
     * the call (the last stable offset under read_committed), in partition then offset order.
     */
    static List<ConsumerRecord<byte[], byte[]>> readAll(Properties client, String topic, IsolationLevel isolation) {
        Properties props = new Properties();
        props.putAll(client);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation.toString());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, TIMEOUT).stream()
                    .map(p -> new TopicPartition(topic, p.partition()))
                    .sorted((a, b) -> Integer.compare(a.partition(), b.partition()))
                    .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            // With read_committed, endOffsets is the last stable offset.
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, TIMEOUT);
            List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (!reached(consumer, end)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("timed out reading " + topic + " up to " + end);
                }
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
            records.sort((a, b) -> a.partition() != b.partition()
                    ? Integer.compare(a.partition(), b.partition())
                    : Long.compare(a.offset(), b.offset()));
            return records;
        }
    }

    private static boolean reached(KafkaConsumer<?, ?> consumer, Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> partition : end.entrySet()) {
            if (consumer.position(partition.getKey()) < partition.getValue()) {
                return false;
            }
        }
        return true;
    }
}
