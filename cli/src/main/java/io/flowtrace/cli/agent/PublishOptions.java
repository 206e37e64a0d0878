package io.flowtrace.cli.agent;

import io.flowtrace.agent.kafka.ProducerSettings;
import io.flowtrace.agent.kafka.SpoolingPublisher;
import io.flowtrace.agent.metrics.AgentMetrics;
import io.flowtrace.agent.metrics.HealthCheck;
import io.flowtrace.agent.metrics.MetricsEndpoint;
import io.flowtrace.agent.spool.DiskSpool;
import io.flowtrace.agent.spool.RecordWeight;
import io.flowtrace.agent.spool.SpoolCorruptedException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.ConfigException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** Kafka, spool and identity options shared by the agents (a picocli mixin), and their exit codes in --help. */
@Command(
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            AgentExit.CODE_OK,
            AgentExit.CODE_INPUT,
            AgentExit.CODE_USAGE,
            AgentExit.CODE_DROPPED,
            AgentExit.CODE_SPOOLED
        })
public final class PublishOptions {
    @Option(
            names = "--bootstrap-servers",
            // no [ ] in a label: AsciiDoc took "[,...]_]" for markup and the man page lost the option
            paramLabel = "HOST:PORT,...",
            description = "Kafka bootstrap servers, comma-separated (or bootstrap.servers in --kafka-config)")
    String bootstrapServers;

    @Option(
            names = "--kafka-config",
            paramLabel = "FILE",
            description =
                    "Kafka producer properties (TLS, SASL, any client setting); applied over the agent's defaults")
    Path kafkaConfig;

    @Option(
            names = "--compression",
            paramLabel = "TYPE",
            description = "producer compression: zstd (default), lz4, gzip, snappy, none")
    String compression;

    @Option(names = "--agent-id", paramLabel = "ID", description = "agent identity in the vantage (default: host name)")
    String agentId;

    @Option(
            names = "--spool-dir",
            paramLabel = "DIR",
            description = "on-disk spool for outages (default: ~/.flowtrace/spool/<topic>)")
    Path spoolDir;

    @Option(
            names = "--spool-max-bytes",
            paramLabel = "BYTES",
            defaultValue = "1073741824",
            description = "spool size limit; records beyond it are dropped and counted (default: ${DEFAULT-VALUE})")
    long spoolMaxBytes;

    @Option(
            names = "--max-block-ms",
            paramLabel = "MS",
            description =
                    "wait this long for room in the producer before spooling (default: 5000 for files, 0 for live sources)")
    Long maxBlockMs;

    @Option(
            names = "--shutdown-timeout",
            paramLabel = "SECONDS",
            defaultValue = "30",
            description =
                    "on exit, wait this long for Kafka to take the spool and in-flight records (default: ${DEFAULT-VALUE})")
    long shutdownTimeoutSeconds;

    @Option(
            names = {"-q", "--quiet"},
            description = "no progress and no summary on stderr")
    boolean quiet;

    @Option(
            names = "--metrics-port",
            paramLabel = "PORT",
            description =
                    "serve the agent's counters at http://ADDRESS:PORT/metrics (Prometheus text format; 0: any free port)")
    Integer metricsPort;

    @Option(
            names = "--metrics-address",
            paramLabel = "ADDRESS",
            defaultValue = "127.0.0.1",
            description =
                    "address the metrics endpoint listens on (default: ${DEFAULT-VALUE}; 0.0.0.0 for a scraper elsewhere)")
    String metricsAddress;

    @Option(
            names = "--health-max-silence",
            paramLabel = "SECONDS",
            defaultValue = "300",
            description =
                    "GET /healthz on the metrics port answers 503 when records were read but none published for this"
                            + " long, or tcpdump restarted 3 times in 5 minutes (default: ${DEFAULT-VALUE})")
    long healthMaxSilenceSeconds;

    String agentId() {
        if (agentId != null) {
            return agentId;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            String env = System.getenv("HOSTNAME");
            return env != null ? env : "unknown-host";
        }
    }

    /** The metrics endpoint when --metrics-port is given (its URL on stderr), else null. */
    MetricsEndpoint startMetrics(String topic, AgentMetrics metrics, SpoolingPublisher publisher) throws IOException {
        if (metricsPort == null) {
            return null;
        }
        if (healthMaxSilenceSeconds <= 0) {
            throw new IllegalArgumentException(
                    "--health-max-silence must be a positive number of seconds, not " + healthMaxSilenceSeconds);
        }
        HealthCheck health = new HealthCheck(
                metrics,
                System::nanoTime,
                HealthCheck.DEFAULT_MAX_RESTARTS,
                HealthCheck.DEFAULT_RESTART_WINDOW,
                Duration.ofSeconds(healthMaxSilenceSeconds));
        MetricsEndpoint endpoint = MetricsEndpoint.start(
                new InetSocketAddress(metricsAddress, metricsPort),
                metrics,
                Map.of("agent", agentId(), "topic", topic),
                publisher::spoolPendingRecords,
                health);
        // One println of the whole line: printf writes it piece by piece, and the producer's log lines
        // (stdout, same terminal or pipe) landed inside the URL (TcpdumpAgentLiveITCase failed on it).
        System.err.println(String.format(
                Locale.ROOT,
                "flowtrace agent: metrics on http://%s:%d/metrics, health on /healthz",
                metricsAddress,
                endpoint.port()));
        return endpoint;
    }

    /** Opens the spool and the producer for {@code topic}; each record counts as one event. */
    SpoolingPublisher openPublisher(String topic, AgentMetrics metrics, boolean liveSource)
            throws IOException, SpoolCorruptedException {
        return openPublisher(topic, metrics, liveSource, RecordWeight.ONE, 0);
    }

    /**
     * As above, counting the packets a spooled record carries with {@code weight}.
     *
     * @param largestValue the largest record value the caller will send (0: no check)
     * @throws IllegalArgumentException when the producer settings would reject such a record
     */
    SpoolingPublisher openPublisher(
            String topic, AgentMetrics metrics, boolean liveSource, RecordWeight weight, int largestValue)
            throws IOException, SpoolCorruptedException {
        Properties props = ProducerSettings.build(
                bootstrapServers, compression, kafkaConfig, "flowtrace-agent-" + agentId() + "-" + topic);
        if (largestValue > ProducerSettings.maxValueBytes(props)) {
            throw new IllegalArgumentException("--batch-max-bytes " + largestValue + " does not fit the producer's "
                    + "max.request.size / buffer.memory (at most " + ProducerSettings.maxValueBytes(props) + ")");
        }
        Path dir = spoolDir != null ? spoolDir : Path.of(System.getProperty("user.home"), ".flowtrace", "spool", topic);
        KafkaProducer<byte[], byte[]> producer = producer(props);
        DiskSpool spool;
        try {
            spool = DiskSpool.open(dir, spoolMaxBytes, weight);
        } catch (IOException | SpoolCorruptedException | RuntimeException e) {
            producer.close(Duration.ZERO);
            throw e;
        }
        if (spool.recoveredTornBytes() > 0) {
            System.err.printf(
                    Locale.ROOT,
                    "flowtrace agent: spool %s: cut off a torn last record (%d bytes) left by a crash%n",
                    dir,
                    spool.recoveredTornBytes());
        }
        long blockMs = maxBlockMs != null ? maxBlockMs : liveSource ? 0 : 5000;
        return new SpoolingPublisher(
                producer,
                topic,
                spool,
                metrics,
                TimeUnit.MILLISECONDS.toNanos(blockMs),
                Duration.ofSeconds(shutdownTimeoutSeconds));
    }

    /**
     * The producer, or an IllegalArgumentException (exit 2, one line) when its settings cannot work:
     * the client refuses to start when no host of bootstrap.servers resolves (its ConfigException,
     * "No resolvable bootstrap urls"), which is a wrong command line, not a broker that is away.
     */
    private static KafkaProducer<byte[], byte[]> producer(Properties props) {
        try {
            return new KafkaProducer<>(props);
        } catch (KafkaException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            String servers = props.getProperty(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG);
            if (cause instanceof ConfigException
                    && String.valueOf(cause.getMessage()).contains("resolvable")) {
                throw new IllegalArgumentException("--bootstrap-servers " + servers
                        + ": no host name in it resolves (DNS), so there is no" + " broker to send to or to spool for");
            }
            throw new IllegalArgumentException("the Kafka producer cannot start with these settings: "
                    + (cause.getMessage() != null
                            ? cause.getMessage()
                            : cause.getClass().getSimpleName()));
        }
    }

    /**
     * Flushes and closes the publisher, then prints the agent's summary (unless -q) and stops the
     * endpoint. What Kafka did not take gets a last line even with -q: nothing stays behind silently.
     *
     * @param items what the records carry ("packets", "events"), for that line
     * @return the delivery part of the exit status: {@link AgentExit#DROPPED}, {@link AgentExit#SPOOLED} or 0
     */
    int closeAndReport(SpoolingPublisher publisher, AgentProgress progress, MetricsEndpoint endpoint, String items)
            throws IOException {
        IOException failure = null;
        try {
            publisher.close();
        } catch (IOException e) {
            failure = e; // said by the command, after what the spool holds
        } finally {
            if (!quiet) {
                progress.printSummary(System.err);
            }
            if (endpoint != null) {
                endpoint.close();
            }
        }
        int delivery = AgentExit.delivery(progress.metrics(), publisher, items, shutdownTimeoutSeconds, System.err);
        if (failure != null) {
            throw failure;
        }
        return delivery;
    }
}
