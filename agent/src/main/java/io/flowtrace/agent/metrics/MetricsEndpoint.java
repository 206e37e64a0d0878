package io.flowtrace.agent.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * An agent's counters over HTTP in the Prometheus text exposition format (version 0.0.4), at
 * {@code GET /metrics}: what a scraper (Prometheus, Grafana Agent, the OpenTelemetry collector) or
 * an operator with curl reads while the agent runs. The JDK's own HTTP server, one thread; every
 * request renders a fresh snapshot of {@link AgentMetrics}. Metric names and meanings: docs/agent.md.
 */
public final class MetricsEndpoint implements AutoCloseable {
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final HttpServer server;

    private MetricsEndpoint(HttpServer server) {
        this.server = server;
    }

    /**
     * Serves {@code metrics} on {@code address} (port 0: any free port, see {@link #port()}).
     *
     * @param labels constant labels on every sample (e.g. agent id and topic)
     * @param spoolPending records waiting in the disk spool, read at each scrape
     */
    public static MetricsEndpoint start(InetSocketAddress address, AgentMetrics metrics, Map<String, String> labels,
            LongSupplier spoolPending) throws IOException {
        HttpServer server = HttpServer.create(address, 8);
        server.createContext("/metrics", exchange -> respond(exchange, render(metrics, labels, spoolPending.getAsLong())));
        server.createContext("/", exchange -> {
            exchange.sendResponseHeaders(404, -1);
            exchange.close();
        });
        server.start();
        return new MetricsEndpoint(server);
    }

    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
    }

    private static void respond(HttpExchange exchange, String body) throws IOException {
        try (exchange) {
            if (!"GET".equals(exchange.getRequestMethod()) && !"HEAD".equals(exchange.getRequestMethod())) {
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
            boolean head = "HEAD".equals(exchange.getRequestMethod());
            exchange.sendResponseHeaders(200, head ? -1 : bytes.length);
            if (!head) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(bytes);
                }
            }
        }
    }

    /** One snapshot in the text format: a HELP and TYPE line per family, then its samples. */
    public static String render(AgentMetrics m, Map<String, String> labels, long spoolPending) {
        String constant = labelText(labels);
        StringBuilder b = new StringBuilder(1024);
        family(b, "flowtrace_agent_records_total", "counter",
                "records by stage: read from the source, accepted for publishing, published (acknowledged by Kafka), "
                        + "spooled to disk, replayed from the spool, dropped because the spool was full");
        sample(b, "flowtrace_agent_records_total", constant, "stage", "read", m.read.sum());
        sample(b, "flowtrace_agent_records_total", constant, "stage", "accepted", m.accepted.sum());
        sample(b, "flowtrace_agent_records_total", constant, "stage", "published", m.published.sum());
        sample(b, "flowtrace_agent_records_total", constant, "stage", "spooled", m.spooled.sum());
        sample(b, "flowtrace_agent_records_total", constant, "stage", "replayed", m.replayed.sum());
        sample(b, "flowtrace_agent_records_total", constant, "stage", "dropped", m.dropped.sum());
        family(b, "flowtrace_agent_batches_total", "counter",
                "Kafka records at the same stages: a batch of one flow's packets, or one record per packet "
                        + "(batching off) or conntrack event");
        sample(b, "flowtrace_agent_batches_total", constant, "stage", "accepted", m.acceptedBatches.sum());
        sample(b, "flowtrace_agent_batches_total", constant, "stage", "published", m.publishedBatches.sum());
        sample(b, "flowtrace_agent_batches_total", constant, "stage", "spooled", m.spooledBatches.sum());
        sample(b, "flowtrace_agent_batches_total", constant, "stage", "replayed", m.replayedBatches.sum());
        sample(b, "flowtrace_agent_batches_total", constant, "stage", "dropped", m.droppedBatches.sum());
        byReason(b, "flowtrace_agent_batch_flushes_total", "why batches left the batcher: packets, bytes, linger, "
                + "open-batch-cap, fin-rst, spooling, shutdown", constant, m.batchFlushes());
        byReason(b, "flowtrace_agent_malformed_total", "records that could not be decoded, by reason", constant, m.malformed());
        byReason(b, "flowtrace_agent_skipped_total", "records not ours to publish (e.g. not TCP), by reason", constant,
                m.skipped());
        byReason(b, "flowtrace_agent_failed_total", "records Kafka refused for good, by reason", constant, m.failed());
        family(b, "flowtrace_agent_source_total", "counter",
                "the source's own cumulative counters: tcpdump's captured / received by filter / dropped by kernel "
                        + "and restarts, netlink ENOBUFS");
        for (Map.Entry<String, Long> e : m.sourceCounters().entrySet()) {
            sample(b, "flowtrace_agent_source_total", constant, "counter", e.getKey(), e.getValue());
        }
        family(b, "flowtrace_agent_spool_pending_records", "gauge", "records in the disk spool waiting for Kafka");
        b.append("flowtrace_agent_spool_pending_records");
        if (!constant.isEmpty()) {
            b.append('{').append(constant).append('}');
        }
        b.append(' ').append(spoolPending).append('\n');
        return b.toString();
    }

    private static void byReason(StringBuilder b, String name, String help, String constant, Map<String, Long> counts) {
        family(b, name, "counter", help);
        counts.forEach((reason, n) -> sample(b, name, constant, "reason", reason, n));
    }

    private static void family(StringBuilder b, String name, String type, String help) {
        b.append("# HELP ").append(name).append(' ').append(help.replace("\\", "\\\\").replace("\n", "\\n")).append('\n');
        b.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    }

    private static void sample(StringBuilder b, String name, String constant, String label, String value, long n) {
        b.append(name).append('{');
        if (!constant.isEmpty()) {
            b.append(constant).append(',');
        }
        b.append(label).append("=\"").append(escape(value)).append("\"} ").append(n).append('\n');
    }

    private static String labelText(Map<String, String> labels) {
        StringBuilder b = new StringBuilder();
        new TreeMap<>(labels).forEach((k, v) -> { // sorted: the same text for the same state
            if (b.length() > 0) {
                b.append(',');
            }
            b.append(k).append("=\"").append(escape(v)).append('"');
        });
        return b.toString();
    }

    /** Label values escape backslash, double quote and line feed (the text format's rules). */
    static String escape(String v) {
        return v.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }
}
