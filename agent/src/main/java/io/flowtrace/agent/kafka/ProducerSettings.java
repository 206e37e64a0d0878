package io.flowtrace.agent.kafka;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agents' Kafka producer configuration: our defaults, then the operator's properties file
 * (TLS, SASL, any client property), then the explicit command-line options.
 *
 * <p>Defaults and why (measurements in docs/agent.md):
 * <ul>
 *   <li>{@code enable.idempotence=true}, {@code acks=all}: the broker drops retried duplicates.</li>
 *   <li>{@code max.in.flight.requests.per.connection=1}, not Kafka's 5: with several requests in
 *       flight, a first batch refused with NOT_LEADER_OR_FOLLOWER (a new topic, a broker restart)
 *       is retried after a later batch of the same partition was accepted, which a broker takes as
 *       the first batch of an unknown producer; the retry then fails with OUT_OF_ORDER_SEQUENCE_NUMBER
 *       forever (seen with Kafka 4.2.0 in AgentPacketsReplayITCase). One request per connection
 *       still carries a batch for every partition led by that broker.</li>
 *   <li>{@code delivery.timeout.ms} = Integer.MAX_VALUE, {@code retries} = Integer.MAX_VALUE: the
 *       producer never gives up on a batch it accepted, because the agent could not tell whether an
 *       expired in-flight batch was written (see {@link SpoolingPublisher}).</li>
 *   <li>{@code max.block.ms=0}: {@code send()} refuses at once when the buffer is full or the topic's
 *       metadata is unknown; {@link SpoolingPublisher} decides whether to wait or to spool.</li>
 *   <li>{@code compression.type=zstd}: 2.1× fewer bytes than lz4 for PacketEvents and no slower
 *       (docs/agent.md); {@code linger.ms=10}, {@code batch.size=256 KiB},
 *       {@code buffer.memory=32 MiB}: throughput at a bounded in-memory backlog.</li>
 * </ul>
 */
public final class ProducerSettings {
    private static final Logger LOG = LoggerFactory.getLogger(ProducerSettings.class);
    public static final String DEFAULT_COMPRESSION = "zstd";

    private ProducerSettings() {}

    /**
     * The largest record value {@code props} lets the producer send: a record over
     * {@code max.request.size} or {@code buffer.memory} is rejected for good (RecordTooLargeException),
     * which for the agent would be a loss; 1 KiB is left for the key and the record's framing.
     */
    public static long maxValueBytes(Properties props) {
        long request = Long.parseLong(props.getProperty(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, "1048576")
                .trim());
        long buffer = Long.parseLong(props.getProperty(ProducerConfig.BUFFER_MEMORY_CONFIG, String.valueOf(32L << 20))
                .trim());
        return Math.min(request, buffer) - 1024;
    }

    /**
     * @param bootstrapServers null to take it from the file
     * @param compression null to keep the default or the file's value
     * @param clientConfig operator's properties file, or null
     */
    public static Properties build(String bootstrapServers, String compression, Path clientConfig, String clientId)
            throws IOException {
        Properties p = new Properties();
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        p.put(ProducerConfig.RETRIES_CONFIG, String.valueOf(Integer.MAX_VALUE));
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, String.valueOf(Integer.MAX_VALUE));
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "0");
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, DEFAULT_COMPRESSION);
        p.put(ProducerConfig.LINGER_MS_CONFIG, "10");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, String.valueOf(256 * 1024));
        p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, String.valueOf(32L << 20));
        p.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        if (clientConfig != null) {
            Properties file = new Properties();
            try (Reader r = Files.newBufferedReader(clientConfig)) {
                file.load(r);
            } catch (NoSuchFileException e) {
                throw new NoSuchFileException(clientConfig.toString(), null, "Kafka client properties file not found");
            }
            for (Map.Entry<Object, Object> e : file.entrySet()) {
                String key = e.getKey().toString();
                if (key.equals(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG)
                        || key.equals(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG)
                        || key.equals(ProducerConfig.ACKS_CONFIG)
                        || key.equals(ProducerConfig.MAX_BLOCK_MS_CONFIG)) {
                    LOG.warn(
                            "{} sets {}={}: the agent's no-loss/no-duplicate guarantee assumes the default {} "
                                    + "(docs/agent.md)",
                            clientConfig,
                            key,
                            e.getValue(),
                            p.get(key));
                }
                p.put(key, e.getValue().toString());
            }
        }
        if (bootstrapServers != null) {
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        }
        if (compression != null) {
            p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, compression);
        }
        if (!p.containsKey(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG)) {
            throw new IllegalArgumentException(
                    "no Kafka bootstrap servers: give --bootstrap-servers or " + "bootstrap.servers in --kafka-config");
        }
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return p;
    }
}
