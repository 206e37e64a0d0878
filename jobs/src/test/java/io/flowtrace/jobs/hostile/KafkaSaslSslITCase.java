package io.flowtrace.jobs.hostile;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.flowtrace.avro.FlowRecord;
import io.flowtrace.avro.PacketEvent;
import io.flowtrace.avro.Vantage;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.jobs.CaptureFixtures;
import io.flowtrace.jobs.FlowtraceJob;
import io.flowtrace.jobs.ItJobOptions;
import io.flowtrace.jobs.JobTopics;
import io.flowtrace.jobs.config.JobConfig;
import io.flowtrace.jobs.config.JobOption;
import io.flowtrace.jobs.input.InputSources;
import io.flowtrace.jobs.output.JobSinks;
import io.flowtrace.testkit.KafkaBroker;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job against a broker that only accepts TLS + SASL/SCRAM-SHA-512 (certificate generated in the
 * test), configured through nothing but its {@code --kafka.*} pass-through options: it reads a real
 * capture and writes its flows (exactly-once, transactional) back over SASL_SSL; with a wrong
 * password it fails fast with Kafka's authentication error instead of hanging.
 */
class KafkaSaslSslITCase {
    private static final String CAPTURE = "decoding/tcp4-sack.pcap";
    private static final Vantage VANTAGE = new Vantage("tls-itcase", "eth0");

    @RegisterExtension
    @Order(1)
    static final KafkaBroker.Secured KAFKA = new KafkaBroker.Secured();

    @RegisterExtension
    @Order(2)
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(2)
            .build());

    @Test
    void readsAndWritesOverSaslSslWithScramCredentialsFromKafkaOptions(@TempDir Path checkpoints) throws Exception {
        JobConfig config = JobConfig.of(options("tls", checkpoints, KAFKA.password()));
        createTopics(config);
        Map<String, JsonNode> offline = CaptureFixtures.offlineReports(CAPTURE, PacketEvents.vantage(VANTAGE));
        publish(config.get(JobOption.PACKETS_TOPIC));

        runJob(config);

        Map<String, FlowRecord> last = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : KAFKA.readCommitted(config.get(JobOption.FLOWS_TOPIC))) {
            FlowRecord f = FlowRecord.getDecoder().decode(r.value());
            last.put(
                    PacketEvents.vantage(f.getFlow().getVantage()) + " "
                            + f.getFlow().getClient() + " " + f.getFlow().getServer() + " "
                            + f.getFlow().getInstance(),
                    f);
        }
        assertThat(last.keySet()).isEqualTo(offline.keySet());
        last.forEach((flow, f) -> {
            assertThat(f.getC2s().getPackets())
                    .isEqualTo(offline.get(flow).get("c2s").get("packets").asLong());
            assertThat(f.getS2c().getPackets())
                    .isEqualTo(offline.get(flow).get("s2c").get("packets").asLong());
        });
    }

    @Test
    void failsFastWithAnAuthenticationErrorOnAWrongPassword(@TempDir Path checkpoints) throws Exception {
        JobConfig config = JobConfig.of(options("wrong", checkpoints, "not-the-password"));
        createTopics(config);
        publish(config.get(JobOption.PACKETS_TOPIC));
        // a hang would time out here; the job must end by itself with Kafka's error
        CompletableFuture<Void> run = CompletableFuture.runAsync(() -> {
            try {
                runJob(config);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertThatThrownBy(() -> run.get(3, TimeUnit.MINUTES))
                .satisfies(e -> assertThat(ExceptionUtils.findThrowable(e, SaslAuthenticationException.class))
                        .as("SaslAuthenticationException in %s", ExceptionUtils.stringifyException(e))
                        .isPresent());
    }

    private static void runJob(JobConfig config) throws Exception {
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(FlowtraceJob.flinkConfiguration(config));
        new FlowtraceJob(config, InputSources.packets(config), JobSinks.fromConfig(config)).build(env);
        env.execute("flowtrace-sasl-ssl-itcase");
    }

    private static void createTopics(JobConfig config) {
        // the TCP pipeline's topics only: this job has no conntrack input
        JobTopics.create(
                KAFKA,
                2,
                config,
                List.of(
                        JobOption.PACKETS_TOPIC,
                        JobOption.FLOWS_TOPIC,
                        JobOption.TCP_EVENTS_TOPIC,
                        JobOption.SERVICE_WINDOWS_TOPIC,
                        JobOption.VANTAGE_WINDOWS_TOPIC,
                        JobOption.DEAD_LETTERS_TOPIC));
    }

    private static void publish(String topic) {
        DecodedPacket scratch = new DecodedPacket();
        try (KafkaProducer<byte[], byte[]> producer = KAFKA.newProducer()) {
            for (PacketEvent p : CaptureFixtures.packets(CAPTURE, VANTAGE)) {
                PacketEvents.fromAvro(p, scratch);
                String key = PacketEvents.flowKey(PacketEvents.vantagePoint(p.getVantage()), scratch);
                producer.send(new ProducerRecord<>(topic, key.getBytes(UTF_8), HostilePackets.encode(p)));
            }
            producer.send(new ProducerRecord<>(topic, "bad".getBytes(UTF_8), "not avro".getBytes(UTF_8)));
            producer.flush();
        }
    }

    private static Map<String, String> options(String name, Path checkpoints, String password) {
        ItJobOptions o = ItJobOptions.of(name, KAFKA.bootstrapServers(), "", "", checkpoints, 2)
                .without(JobOption.JDBC_URL)
                .without(JobOption.JDBC_USER)
                .with(JobOption.GROUP_ID, name + "-itcase")
                .with(JobOption.TRANSACTIONAL_ID_PREFIX, name + "-itcase")
                .with(JobOption.CONNTRACK_INPUT, false)
                .with(JobOption.POSTGRES_OUTPUT, false)
                .kafkaProperty("request.timeout.ms", "10000")
                .kafkaProperty("default.api.timeout.ms", "20000");
        KAFKA.securityProperties(KafkaBroker.Secured.USER, password).forEach(o::kafkaProperty);
        return o.toMap();
    }
}
