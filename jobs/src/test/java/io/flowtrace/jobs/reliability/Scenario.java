package io.flowtrace.jobs.reliability;

import io.flowtrace.avro.DeadLetter;
import io.flowtrace.jobs.FlowtraceJob;
import io.flowtrace.jobs.ItJobOptions;
import io.flowtrace.jobs.config.JobConfig;
import io.flowtrace.jobs.config.JobOption;
import io.flowtrace.jobs.flow.FlowSummary;
import io.flowtrace.jobs.input.ConntrackRecordDeserializer;
import io.flowtrace.jobs.input.PacketRecordDeserializer;
import io.flowtrace.jobs.output.JobSinks;
import io.flowtrace.jobs.output.PostgresSinks;
import io.flowtrace.testkit.KafkaBroker;
import io.flowtrace.testkit.Postgres;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.KafkaSourceBuilder;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.types.Either;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.apache.kafka.common.TopicPartition;

/**
 * One failure scenario's own resources: input and output topics named {@code <name>.<role>}, a
 * PostgreSQL database {@code rel_<name>} with the sink schema, a consumer group, a transactional id
 * prefix, and the job built on them. The job is the production pipeline ({@link FlowtraceJob} with
 * {@link JobSinks#fromConfig}); only the Kafka sources differ from {@code InputSources.packets}:
 * they stop at the known end offsets of the whole input (option {@code bounded} stops at the offsets
 * latest at start), so a job can run while the input is still being published.
 */
final class Scenario {
    static final int PARALLELISM = 2;
    static final List<String> OUTPUT_ROLES =
            List.of("flows", "tcp-events", "service-windows", "vantage-windows", "dead-letters", "conntrack-budgets");

    final String name;
    private final ReliabilityInput input;
    private final KafkaBroker kafka;
    private final Postgres postgres;
    private final Path checkpoints;

    Scenario(String name, ReliabilityInput input, KafkaBroker kafka, Postgres postgres, Path checkpoints) {
        this.name = name;
        this.input = input;
        this.kafka = kafka;
        this.postgres = postgres;
        this.checkpoints = checkpoints;
    }

    String topic(String role) {
        return name + "." + role;
    }

    /** The role of one of this scenario's topics ("packets", "flows", ...). */
    String role(String topic) {
        return topic.startsWith(name + ".") ? topic.substring(name.length() + 1) : topic;
    }

    String database() {
        return "rel_" + name.replace('-', '_');
    }

    /** Topics, database and schema. */
    Scenario create() {
        List<String> topics = new ArrayList<>(List.of(topic("packets"), topic("conntrack")));
        OUTPUT_ROLES.forEach(r -> topics.add(topic(r)));
        createTopics(topics);
        postgres.createDatabase(database());
        PostgresSinks.applySchema(config());
        return this;
    }

    /**
     * Like {@code KafkaBroker.createTopics}, but waiting for the partition leaders tolerates the
     * metadata race right after creation (describeTopics answering UnknownTopicOrPartition, seen on a
     * loaded machine; KafkaBroker's own wait gives up on it).
     */
    private void createTopics(List<String> names) {
        try (Admin admin = Admin.create(kafka.clientProperties())) {
            List<NewTopic> topics = new ArrayList<>();
            names.forEach(n -> topics.add(new NewTopic(n, ReliabilityInput.PARTITIONS, (short) 1)));
            admin.createTopics(topics).all().get(1, TimeUnit.MINUTES);
            JobControl.poll("leaders of " + names, JobControl.JOB_TIMEOUT, () -> {
                try {
                    return admin.describeTopics(names).allTopicNames().get(30, TimeUnit.SECONDS).values().stream()
                            .allMatch(d -> d.partitions().size() == ReliabilityInput.PARTITIONS
                                    && d.partitions().stream()
                                            .allMatch(p -> p.leader() != null
                                                    && !p.leader().isEmpty()));
                } catch (ExecutionException e) {
                    return false; // UnknownTopicOrPartition until the metadata has propagated
                } catch (InterruptedException | TimeoutException e) {
                    throw new IllegalStateException(e);
                }
            });
        } catch (InterruptedException | ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot create topics " + names, e);
        }
    }

    /** The job options every scenario shares; a test adds what it is about with {@code with}. */
    ItJobOptions options() {
        return ItJobOptions.of(
                        name,
                        kafka.bootstrapServers(),
                        postgres.jdbcUrl(database()),
                        Postgres.USER,
                        checkpoints.resolve(name),
                        PARALLELISM)
                .with(JobOption.CONNTRACK_DRAIN_LATENCY_MS, 1000)
                .with(JobOption.GROUP_ID, group())
                .with(JobOption.TRANSACTIONAL_ID_PREFIX, group())
                .with(JobOption.TRANSACTION_TIMEOUT_MS, 120_000)
                .with(JobOption.RESTART_DELAY_MS, 500)
                // A partition without data for a while must not be declared idle: when its data comes back
                // after a pause (a failure, an outage, the second half of the input) the watermark of the
                // other partitions would have run ahead and made it late, and late packets change results.
                .with(JobOption.IDLENESS_MS, 0)
                // No periodic updates of live flows: a periodic update is emitted when the watermark passes
                // its time, and the watermark is emitted on a wall-clock period, so how far a flow has got
                // when its update is taken differs between two failure-free runs (seen: 667 and 677 flow
                // records). Close updates, final records and everything else are functions of the input alone.
                .with(JobOption.UPDATE_INTERVAL_S, 86400);
    }

    /** The shared options, unchanged. */
    JobConfig config() {
        return options().config();
    }

    /** The scenario's consumer group and transactional id prefix. */
    String group() {
        return "rel-" + name;
    }

    /** The production pipeline on this scenario's topics and database, with optional extra flow sinks. */
    FlowtraceJob job(JobConfig config, List<Sink<FlowSummary>> extraFlowSinks) {
        return job(config, extraFlowSinks, true);
    }

    /**
     * Unbounded sources (no stopping offsets), for a job that is restored from a savepoint: a bounded
     * KafkaSource restored from a savepoint never finishes (flink-connector-kafka 5.0.0-2.2: the restored
     * enumerator finds no new partition and never sends NoMoreSplits, FLINK-31006/FLINK-33466). Such a
     * job ends with stop-with-savepoint and drain, which ends the input like a bounded source does.
     */
    FlowtraceJob unboundedJob(JobConfig config) {
        return job(config, List.of(), false);
    }

    private FlowtraceJob job(JobConfig config, List<Sink<FlowSummary>> extraFlowSinks, boolean bounded) {
        JobSinks sinks = JobSinks.fromConfig(config);
        List<Sink<FlowSummary>> flows = new ArrayList<>(sinks.flows());
        flows.addAll(extraFlowSinks);
        JobSinks all = new JobSinks(
                flows,
                sinks.tcpEvents(),
                sinks.serviceWindows(),
                sinks.vantageWindows(),
                sinks.deadLetters(),
                sinks.conntrackBudgets(),
                List.of(),
                sinks.flowRows());
        return new FlowtraceJob(
                config,
                source(config, JobOption.PACKETS_TOPIC, bounded ? input.packets : null, new PacketRecordDeserializer()),
                source(
                        config,
                        JobOption.CONNTRACK_TOPIC,
                        bounded ? input.conntrack : null,
                        new ConntrackRecordDeserializer(config.get(JobOption.CONNTRACK_KERNEL_FEATURES))),
                all);
    }

    @SuppressWarnings("deprecation") // the connector's committedOffsets still takes Kafka's OffsetResetStrategy
    private static <T> KafkaSource<Either<DeadLetter, T>> source(
            JobConfig config,
            JobOption topic,
            List<ReliabilityInput.Rec> records,
            KafkaRecordDeserializationSchema<Either<DeadLetter, T>> deserializer) {
        String name = config.get(topic);
        KafkaSourceBuilder<Either<DeadLetter, T>> b = KafkaSource.<Either<DeadLetter, T>>builder()
                .setBootstrapServers(config.get(JobOption.BOOTSTRAP_SERVERS))
                .setTopics(name)
                .setGroupId(config.get(JobOption.GROUP_ID))
                .setStartingOffsets(
                        config.get(JobOption.START_OFFSETS).equals("committed")
                                ? OffsetsInitializer.committedOffsets(OffsetResetStrategy.EARLIEST)
                                : OffsetsInitializer.earliest())
                .setDeserializer(deserializer)
                .setProperty("commit.offsets.on.checkpoint", "true");
        if (records != null) {
            b.setBounded(OffsetsInitializer.offsets(ReliabilityInput.endOffsets(name, records)));
        }
        return b.build();
    }

    void publishFirstHalf() {
        ReliabilityInput.publish(kafka, topic("packets"), ReliabilityInput.firstHalf(input.packets));
        ReliabilityInput.publish(kafka, topic("conntrack"), ReliabilityInput.firstHalf(input.conntrack));
    }

    void publishSecondHalf() {
        ReliabilityInput.publish(kafka, topic("packets"), ReliabilityInput.secondHalf(input.packets));
        ReliabilityInput.publish(kafka, topic("conntrack"), ReliabilityInput.secondHalf(input.conntrack));
    }

    /** The consumer-group offsets that mean "the first half is consumed": its end offsets in both input topics. */
    Map<TopicPartition, Long> firstHalfEndOffsets() {
        Map<TopicPartition, Long> end =
                new HashMap<>(ReliabilityInput.endOffsets(topic("packets"), ReliabilityInput.firstHalf(input.packets)));
        end.putAll(ReliabilityInput.endOffsets(topic("conntrack"), ReliabilityInput.firstHalf(input.conntrack)));
        return end;
    }

    Map<TopicPartition, Long> allEndOffsets() {
        Map<TopicPartition, Long> end = new HashMap<>(ReliabilityInput.endOffsets(topic("packets"), input.packets));
        end.putAll(ReliabilityInput.endOffsets(topic("conntrack"), input.conntrack));
        return end;
    }

    OutputSnapshot snapshot() {
        return OutputSnapshot.take(postgres, database(), kafka, this);
    }
}
