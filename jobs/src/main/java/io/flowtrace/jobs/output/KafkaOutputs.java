package io.flowtrace.jobs.output;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.flowtrace.avro.ConntrackBudget;
import io.flowtrace.avro.DeadLetter;
import io.flowtrace.avro.ServiceWindow;
import io.flowtrace.avro.TcpEvent;
import io.flowtrace.avro.VantageWindow;
import io.flowtrace.avro.mapping.FlowRecords;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.jobs.config.JobConfig;
import io.flowtrace.jobs.config.JobOption;
import io.flowtrace.jobs.conntrack.BudgetWindow;
import io.flowtrace.jobs.flow.FlowSummary;
import java.nio.ByteBuffer;
import java.util.Properties;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * Exactly-once KafkaSinks of the output topics: Avro single-object values, keys as in
 * docs/schemas.md (so compaction keeps the latest version of each flow and window). Each sink has
 * its own transactional id prefix: two sinks sharing one would fence each other's producers.
 */
public final class KafkaOutputs {
    private final JobConfig config;

    public KafkaOutputs(JobConfig config) {
        this.config = config;
    }

    KafkaSink<FlowSummary> flows() {
        return sink(JobOption.FLOWS_TOPIC, "flows", new FlowKey(), new FlowValue());
    }

    KafkaSink<TcpEvent> tcpEvents() {
        return sink(
                JobOption.TCP_EVENTS_TOPIC,
                "tcp-events",
                new TcpEventKey(),
                AvroSingleObjectSerializationSchema.of(TcpEvent.class));
    }

    KafkaSink<ServiceWindow> serviceWindows() {
        return sink(
                JobOption.SERVICE_WINDOWS_TOPIC,
                "service-windows",
                new ServiceWindowKey(),
                AvroSingleObjectSerializationSchema.of(ServiceWindow.class));
    }

    KafkaSink<VantageWindow> vantageWindows() {
        return sink(
                JobOption.VANTAGE_WINDOWS_TOPIC,
                "vantage-windows",
                new VantageWindowKey(),
                AvroSingleObjectSerializationSchema.of(VantageWindow.class));
    }

    KafkaSink<DeadLetter> deadLetters() {
        return sink(
                JobOption.DEAD_LETTERS_TOPIC,
                "dead-letters",
                new DeadLetterKey(),
                AvroSingleObjectSerializationSchema.of(DeadLetter.class));
    }

    KafkaSink<BudgetWindow> conntrackBudgets() {
        return sink(JobOption.CONNTRACK_BUDGETS_TOPIC, "conntrack-budgets", new BudgetKey(), new BudgetValue());
    }

    <T> KafkaSink<T> sink(JobOption topic, String output, SerializationSchema<T> key, SerializationSchema<T> value) {
        return KafkaSink.<T>builder()
                .setBootstrapServers(config.get(JobOption.BOOTSTRAP_SERVERS))
                .setKafkaProducerConfig(producerProperties())
                .setRecordSerializer(KafkaRecordSerializationSchema.<T>builder()
                        .setTopic(config.get(topic))
                        .setKeySerializationSchema(key)
                        .setValueSerializationSchema(value)
                        .build())
                .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
                .setTransactionalIdPrefix(config.get(JobOption.TRANSACTIONAL_ID_PREFIX) + "-" + output)
                // The sink's default (1 h) exceeds the broker's default transaction.max.timeout.ms (15 min).
                .setProperty("transaction.timeout.ms", config.get(JobOption.TRANSACTION_TIMEOUT_MS))
                .build();
    }

    /**
     * The output producers' defaults, then any {@code --kafka.*} property. An exactly-once output is
     * visible only when its transaction commits at a checkpoint (every 30 s by default), so waiting
     * up to 50 ms to fill a batch of up to 256 KiB adds no latency a reader can see, and sends far
     * fewer, larger produce requests than Kafka's defaults (5 ms, 16 KiB) for the same records.
     */
    Properties producerProperties() {
        Properties p = new Properties();
        p.setProperty(ProducerConfig.LINGER_MS_CONFIG, "50");
        p.setProperty(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
        p.putAll(config.kafkaProperties());
        return p;
    }

    // Named classes, not lambdas: KafkaSink extracts the element type of its serialization schemas.
    static final class FlowKey implements SerializationSchema<FlowSummary> {
        private static final long serialVersionUID = 1L;

        @Override
        public byte[] serialize(FlowSummary s) {
            return s.kafkaKey().getBytes(UTF_8);
        }
    }

    /** The value the flow function encoded from its walk (FlowRecordEncoder): the FlowRecord contract's bytes. */
    static final class FlowValue implements SerializationSchema<FlowSummary> {
        private static final long serialVersionUID = 1L;

        @Override
        public byte[] serialize(FlowSummary s) {
            return s.value;
        }
    }

    static final class TcpEventKey implements SerializationSchema<TcpEvent> {
        private static final long serialVersionUID = 1L;

        @Override
        public byte[] serialize(TcpEvent e) {
            return FlowRecords.identityKey(e.getFlow()).getBytes(UTF_8);
        }
    }

    static final class ServiceWindowKey implements SerializationSchema<ServiceWindow> {
        private static final long serialVersionUID = 1L;

        @Override
        public byte[] serialize(ServiceWindow w) {
            return (PacketEvents.vantage(w.getVantage()) + " " + w.getService()).getBytes(UTF_8);
        }
    }

    static final class VantageWindowKey implements SerializationSchema<VantageWindow> {
        private static final long serialVersionUID = 1L;

        @Override
        public byte[] serialize(VantageWindow w) {
            return PacketEvents.vantage(w.getVantage()).getBytes(UTF_8);
        }
    }

    static final class BudgetKey implements SerializationSchema<BudgetWindow> {
        private static final long serialVersionUID = 1L;

        @Override
        public byte[] serialize(BudgetWindow b) {
            return PacketEvents.vantage(b.record.getVantage()).getBytes(UTF_8);
        }
    }

    static final class BudgetValue implements SerializationSchema<BudgetWindow> {
        private static final long serialVersionUID = 1L;
        private final AvroSingleObjectSerializationSchema<ConntrackBudget> avro =
                AvroSingleObjectSerializationSchema.of(ConntrackBudget.class);

        @Override
        public byte[] serialize(BudgetWindow b) {
            return avro.serialize(b.record);
        }
    }

    /** The rejected record's own key, unchanged (null when it had none). */
    static final class DeadLetterKey implements SerializationSchema<DeadLetter> {
        private static final long serialVersionUID = 1L;

        @Override
        public byte[] serialize(DeadLetter d) {
            if (d.getKey() == null) {
                return null;
            }
            ByteBuffer b = d.getKey().duplicate();
            byte[] out = new byte[b.remaining()];
            b.get(out);
            return out;
        }
    }
}
