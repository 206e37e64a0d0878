package io.flowtrace.agent.metrics;

import com.sun.net.httpserver.Authenticator;
import com.sun.net.httpserver.HttpExchange;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * An agent's counters for Prometheus at {@code GET /metrics}, whether it delivers at {@code GET /healthz}
 * (readiness) and whether it is alive at {@code GET /livez} (liveness; {@link HealthCheck#liveness()}),
 * on the Prometheus Java client's HTTP server (io.prometheus:prometheus-metrics-exporter-httpserver):
 * the text exposition format (or OpenMetrics / protobuf when the scraper asks for it), a fresh
 * snapshot of {@link AgentMetrics} per scrape. Metric names, labels and the health rules: docs/agent.md.
 *
 * <p>Requests run on a pool of {@link #THREADS} threads, and the JDK server under it drops a connection
 * whose request is not complete within {@link #REQUEST_TIMEOUT_SECONDS} (its timer checks once a second,
 * so a connection is dropped 2-3 s after it opened): a client that connects, sends a few bytes and waits
 * holds one thread for that long. The JDK server reads the request line on a pool thread, so stalled
 * clients take threads from scrapes: four new half-sent requests every 2 s (the pattern that stalled
 * every scrape with 4 threads and a 10 s deadline) hold at most 12 of the 16 threads at any time. The
 * probes' timeouts (deploy/k8s/50-agent-daemonset.yaml) are longer than that deadline.
 */
public final class MetricsEndpoint implements AutoCloseable {
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
    static final int THREADS = 16;
    static final int REQUEST_TIMEOUT_SECONDS = 2;

    static {
        // The JDK HTTP server reads its limits once, when its first instance is made (sun.net.httpserver.ServerConfig).
        setIfAbsent("sun.net.httpserver.maxReqTime", Integer.toString(REQUEST_TIMEOUT_SECONDS));
        setIfAbsent("sun.net.httpserver.maxRspTime", Integer.toString(REQUEST_TIMEOUT_SECONDS));
    }

    private final HTTPServer server;
    private final ExecutorService pool;
    private final ScheduledExecutorService sampler;

    private MetricsEndpoint(HTTPServer server, ExecutorService pool, ScheduledExecutorService sampler) {
        this.server = server;
        this.pool = pool;
        this.sampler = sampler;
    }

    /** As {@link #start(InetSocketAddress, AgentMetrics, Map, LongSupplier, HealthCheck)} with the default health rules. */
    public static MetricsEndpoint start(
            InetSocketAddress address, AgentMetrics metrics, Map<String, String> labels, LongSupplier spoolPending)
            throws IOException {
        return start(address, metrics, labels, spoolPending, HealthCheck.withDefaults(metrics));
    }

    /**
     * Serves {@code metrics} on {@code address} (port 0: any free port, see {@link #port()}).
     *
     * @param labels constant labels on every sample (e.g. agent id and topic)
     * @param spoolPending records waiting in the disk spool, read at each scrape
     */
    public static MetricsEndpoint start(
            InetSocketAddress address,
            AgentMetrics metrics,
            Map<String, String> labels,
            LongSupplier spoolPending,
            HealthCheck health)
            throws IOException {
        PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(new AgentCollector(metrics, new TreeMap<>(labels), spoolPending));
        ExecutorService pool = Executors.newFixedThreadPool(THREADS, daemon("flowtrace-metrics-http"));
        HTTPServer server = HTTPServer.builder()
                .inetAddress(address.getAddress())
                .port(address.getPort())
                .registry(registry)
                .executorService(pool)
                .registerHealthHandler(false)
                .authenticator(new GetOrHeadOnly())
                .defaultHandler(exchange -> {
                    try (exchange) {
                        String path = exchange.getRequestURI().getPath();
                        if (path.equals("/healthz") || path.equals("/livez")) {
                            HealthCheck.Status s = path.equals("/healthz") ? health.status() : health.liveness();
                            respond(exchange, s.healthy() ? 200 : 503, s.reason() + "\n");
                        } else {
                            respond(exchange, 404, "not found: /metrics, /healthz and /livez are served here\n");
                        }
                    }
                })
                .buildAndStart();
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(daemon("flowtrace-health"));
        sampler.scheduleAtFixedRate(health::sample, 0, 1, TimeUnit.SECONDS);
        return new MetricsEndpoint(server, pool, sampler);
    }

    /** One snapshot in the text format (0.0.4), written by the client's own writer, as a scrape would get it. */
    public static String render(AgentMetrics m, Map<String, String> labels, long spoolPending) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter.create()
                    .write(out, new AgentCollector(m, new TreeMap<>(labels), () -> spoolPending).collect());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    public int port() {
        return server.getPort();
    }

    @Override
    public void close() {
        sampler.shutdownNow();
        server.close();
        pool.shutdownNow();
    }

    private static void respond(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        boolean head = "HEAD".equals(exchange.getRequestMethod());
        exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
        if (!head) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    /** Answers anything but GET and HEAD with 405 before a handler runs (the server's one hook on every path). */
    private static final class GetOrHeadOnly extends Authenticator {
        @Override
        public Result authenticate(HttpExchange exchange) {
            String m = exchange.getRequestMethod();
            return m.equals("GET") || m.equals("HEAD") ? new Success(null) : new Failure(405);
        }
    }

    /** The families of {@link AgentMetrics}, built anew at each scrape. */
    private record AgentCollector(AgentMetrics m, Map<String, String> constant, LongSupplier spoolPending)
            implements MultiCollector {
        @Override
        public MetricSnapshots collect() {
            List<MetricSnapshot> families = new ArrayList<>();
            families.add(counter(
                    "flowtrace_agent_records",
                    "records by stage: read from the source, accepted for publishing, published (acknowledged by "
                            + "Kafka), spooled to disk, replayed from the spool, dropped because the spool was full",
                    "stage",
                    orderedStages()));
            families.add(counter(
                    "flowtrace_agent_batches",
                    "Kafka records at the same stages: a batch of one flow's packets, or one record per packet "
                            + "(batching off) or conntrack event",
                    "stage",
                    orderedBatchStages()));
            families.add(counter(
                    "flowtrace_agent_batch_flushes",
                    "why batches left the batcher: packets, bytes, linger, "
                            + "open-batch-cap, fin-rst, spooling, shutdown",
                    "reason",
                    m.batchFlushes()));
            families.add(counter(
                    "flowtrace_agent_malformed",
                    "records that could not be decoded, by reason",
                    "reason",
                    m.malformed()));
            families.add(counter(
                    "flowtrace_agent_skipped",
                    "records not ours to publish (e.g. not TCP), by reason",
                    "reason",
                    m.skipped()));
            families.add(counter(
                    "flowtrace_agent_failed", "records Kafka refused for good, by reason", "reason", m.failed()));
            families.add(counter(
                    "flowtrace_agent_source",
                    "the source's own cumulative counters: tcpdump's captured / "
                            + "received by filter / dropped by kernel and restarts, netlink ENOBUFS",
                    "counter",
                    m.sourceCounters()));
            families.add(GaugeSnapshot.builder()
                    .name("flowtrace_agent_spool_pending_records")
                    .help("records in the disk spool waiting for Kafka")
                    .dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder()
                            .labels(labels(null, null))
                            .value(spoolPending.getAsLong())
                            .build())
                    .build());
            return new MetricSnapshots(families);
        }

        private Map<String, Long> orderedStages() {
            Map<String, Long> stages = new LinkedHashMap<>();
            stages.put("read", m.read.sum());
            stages.put("accepted", m.accepted.sum());
            stages.put("published", m.published.sum());
            stages.put("spooled", m.spooled.sum());
            stages.put("replayed", m.replayed.sum());
            stages.put("dropped", m.dropped.sum());
            return stages;
        }

        private Map<String, Long> orderedBatchStages() {
            Map<String, Long> stages = new LinkedHashMap<>();
            stages.put("accepted", m.acceptedBatches.sum());
            stages.put("published", m.publishedBatches.sum());
            stages.put("spooled", m.spooledBatches.sum());
            stages.put("replayed", m.replayedBatches.sum());
            stages.put("dropped", m.droppedBatches.sum());
            return stages;
        }

        /** A counter family; the client's text format adds the {@code _total} suffix to the samples. */
        private CounterSnapshot counter(String name, String help, String label, Map<String, Long> values) {
            CounterSnapshot.Builder b = CounterSnapshot.builder().name(name).help(help);
            values.forEach((value, n) -> b.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
                    .labels(labels(label, value))
                    .value(n)
                    .build()));
            return b.build();
        }

        private Labels labels(String name, String value) {
            List<String> names = new ArrayList<>(constant.keySet());
            List<String> values = new ArrayList<>(constant.values());
            if (name != null) {
                names.add(name);
                values.add(value);
            }
            return Labels.of(names, values);
        }
    }

    private static ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    private static void setIfAbsent(String property, String value) {
        if (System.getProperty(property) == null) {
            System.setProperty(property, value);
        }
    }
}
