package io.flowtrace.agent.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import kafka.server.BrokerServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A single-node KRaft Kafka (combined broker + controller, Kafka's KafkaClusterTestKit) whose
 * broker can be stopped and started again on the same port and log directory, for outage tests.
 * The testkit's KafkaBroker cannot restart; this helper lives here so testkit stays untouched.
 * The controller keeps running during the outage; clients see the broker's port refuse connections.
 */
public final class RestartableKafka implements AutoCloseable {
    private KafkaClusterTestKit cluster;
    private String bootstrap;

    public void start() throws Exception {
        TestKitNodes nodes = new TestKitNodes.Builder()
                .setCombined(true)
                .setNumBrokerNodes(1)
                .setNumControllerNodes(1)
                .setBootstrapMetadataVersion(MetadataVersion.latestProduction())
                .build();
        KafkaClusterTestKit.Builder builder = new KafkaClusterTestKit.Builder(nodes);
        Map.of(
                        "offsets.topic.replication.factor",
                        "1",
                        "offsets.topic.num.partitions",
                        "1",
                        "transaction.state.log.replication.factor",
                        "1",
                        "transaction.state.log.min.isr",
                        "1",
                        "group.initial.rebalance.delay.ms",
                        "0")
                .forEach(builder::setConfigProp);
        cluster = builder.build();
        cluster.format();
        cluster.startup();
        cluster.waitForReadyBrokers();
        bootstrap = cluster.bootstrapServers();
    }

    public String bootstrapServers() {
        return bootstrap;
    }

    /** Shuts the broker down (its listener closes); the log directory stays. */
    public void stopBroker() {
        BrokerServer broker = cluster.brokers().values().iterator().next();
        broker.shutdown();
        broker.awaitShutdown();
    }

    /** Starts the same broker again: same port (the test kit re-binds it), same log directory. */
    public void startBroker() throws Exception {
        BrokerServer broker = cluster.brokers().values().iterator().next();
        broker.startup();
        cluster.waitForReadyBrokers();
    }

    public void createTopic(String name, int partitions) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1)))
                    .all()
                    .get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot create topic " + name, e.getCause());
        }
        awaitLeaders(name);
    }

    /** Waits until every partition of {@code topic} has a leader in the broker's own metadata. */
    public void awaitLeaders(String topic) throws InterruptedException {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        try (KafkaConsumer<byte[], byte[]> c =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            while (true) {
                List<org.apache.kafka.common.PartitionInfo> infos = c.partitionsFor(topic, Duration.ofSeconds(10));
                if (!infos.isEmpty()
                        && infos.stream()
                                .allMatch(i -> i.leader() != null && !i.leader().isEmpty())) {
                    return;
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("partitions of " + topic + " have no leader: " + infos);
                }
                Thread.sleep(100);
            }
        }
    }

    /** Every record of the topic up to the high watermark, in partition then offset order. */
    public List<ConsumerRecord<byte[], byte[]>> readAll(String topic) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        try (KafkaConsumer<byte[], byte[]> c =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> parts = new ArrayList<>();
            c.partitionsFor(topic, Duration.ofSeconds(30))
                    .forEach(i -> parts.add(new TopicPartition(topic, i.partition())));
            parts.sort((a, b) -> Integer.compare(a.partition(), b.partition()));
            c.assign(parts);
            c.seekToBeginning(parts);
            Map<TopicPartition, Long> end = c.endOffsets(parts, Duration.ofSeconds(30));
            List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("timed out reading " + topic + " up to " + end);
                }
                c.poll(Duration.ofMillis(200)).forEach(out::add);
            }
            out.sort((a, b) -> a.partition() != b.partition()
                    ? Integer.compare(a.partition(), b.partition())
                    : Long.compare(a.offset(), b.offset()));
            return out;
        }
    }

    @Override
    public void close() throws Exception {
        if (cluster != null) {
            cluster.close();
            cluster = null;
        }
    }
}
