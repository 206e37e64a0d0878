package io.flowtrace.jobs.output;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.flowtrace.avro.OpenVpnServerWindow;
import io.flowtrace.avro.OpenVpnSessionRecord;
import io.flowtrace.avro.mapping.OpenVpnSessions;
import io.flowtrace.avro.mapping.PacketEvents;
import io.flowtrace.jobs.config.JobConfig;
import io.flowtrace.jobs.config.JobOption;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.api.connector.sink2.Sink;

/**
 * Where the OpenVPN outputs go: sessions and per-server windows, to PostgreSQL (V8 tables) and,
 * with {@code --openvpn-kafka-output}, to their Kafka topics. Tests pass their own lists.
 */
public record OpenVpnSinks(List<Sink<OpenVpnSessionRecord>> sessions, List<Sink<OpenVpnServerWindow>> serverWindows) {
    public static final OpenVpnSinks NONE = new OpenVpnSinks(List.of(), List.of());

    /** PostgreSQL when {@code --postgres-output}; Kafka when {@code --kafka-output} and {@code --openvpn-kafka-output}. */
    public static OpenVpnSinks fromConfig(JobConfig config) {
        List<Sink<OpenVpnSessionRecord>> sessions = new ArrayList<>();
        List<Sink<OpenVpnServerWindow>> windows = new ArrayList<>();
        if (config.getBoolean(JobOption.POSTGRES_OUTPUT)) {
            PostgresSinks pg = new PostgresSinks(config);
            sessions.add(pg.sink(OpenVpnRows.SESSIONS));
            windows.add(pg.sink(OpenVpnRows.SERVER_WINDOWS));
        }
        if (config.getBoolean(JobOption.KAFKA_OUTPUT) && config.getBoolean(JobOption.OPENVPN_KAFKA_OUTPUT)) {
            KafkaOutputs kafka = new KafkaOutputs(config);
            sessions.add(kafka.sink(
                    JobOption.OPENVPN_SESSIONS_TOPIC,
                    "openvpn-sessions",
                    new SessionKey(),
                    AvroSingleObjectSerializationSchema.of(OpenVpnSessionRecord.class)));
            windows.add(kafka.sink(
                    JobOption.OPENVPN_SERVER_WINDOWS_TOPIC,
                    "openvpn-server-windows",
                    new WindowKey(),
                    AvroSingleObjectSerializationSchema.of(OpenVpnServerWindow.class)));
        }
        return new OpenVpnSinks(List.copyOf(sessions), List.copyOf(windows));
    }

    // Named classes, not lambdas: KafkaSink extracts the element type of its serialization schemas.
    static final class SessionKey implements SerializationSchema<OpenVpnSessionRecord> {
        private static final long serialVersionUID = 1L;

        @Override
        public byte[] serialize(OpenVpnSessionRecord r) {
            return OpenVpnSessions.key(r).getBytes(UTF_8);
        }
    }

    static final class WindowKey implements SerializationSchema<OpenVpnServerWindow> {
        private static final long serialVersionUID = 1L;

        @Override
        public byte[] serialize(OpenVpnServerWindow w) {
            return (PacketEvents.vantage(w.getVantage()) + " " + w.getServer()).getBytes(UTF_8);
        }
    }
}
