package io.flowtrace.agent.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.agent.testing.PrometheusText;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The endpoint over real HTTP, read back with the official Prometheus Python client's parser
 * ({@link PrometheusText}); a client that sends a few bytes and waits must not block a scrape; /healthz.
 */
class MetricsEndpointTest {
    private final HttpClient http = HttpClient.newHttpClient();

    @org.junit.jupiter.api.BeforeAll
    static void parser() {
        org.junit.jupiter.api.Assumptions.assumeTrue(
                PrometheusText.parserAvailable(),
                "python3 with prometheus_client (Debian python3-prometheus-client) is needed to parse the exposition");
    }

    @Test
    void servesEveryCounterWithItsLabelsAndAFreshSnapshotPerScrape() throws Exception {
        AgentMetrics m = new AgentMetrics();
        AtomicLong spool = new AtomicLong(7);
        try (MetricsEndpoint endpoint = MetricsEndpoint.start(
                new InetSocketAddress("127.0.0.1", 0),
                m,
                Map.of("agent", "host-1", "topic", "flowtrace.packets"),
                spool::get)) {
            m.read.add(1000);
            m.accepted.add(990);
            m.published.add(980);
            m.spooled.add(12);
            m.dropped.add(3);
            m.malformed("truncated IPv4 header");
            m.malformed("truncated IPv4 header");
            m.skipped("not TCP");
            m.sourceCounter("tcpdump_packets_dropped_by_kernel", 42);
            HttpResponse<String> r = get(endpoint, "/metrics");
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().firstValue("Content-Type")).hasValue(MetricsEndpoint.CONTENT_TYPE);
            Map<String, Long> samples = PrometheusText.parse(r.body());
            String c = "agent=host-1,topic=flowtrace.packets";
            assertThat(samples)
                    .containsEntry("flowtrace_agent_records_total{" + c + ",stage=read}", 1000L)
                    .containsEntry("flowtrace_agent_records_total{" + c + ",stage=accepted}", 990L)
                    .containsEntry("flowtrace_agent_records_total{" + c + ",stage=published}", 980L)
                    .containsEntry("flowtrace_agent_records_total{" + c + ",stage=spooled}", 12L)
                    .containsEntry("flowtrace_agent_records_total{" + c + ",stage=replayed}", 0L)
                    .containsEntry("flowtrace_agent_records_total{" + c + ",stage=dropped}", 3L)
                    .containsEntry("flowtrace_agent_malformed_total{" + c + ",reason=truncated IPv4 header}", 2L)
                    .containsEntry("flowtrace_agent_skipped_total{" + c + ",reason=not TCP}", 1L)
                    .containsEntry(
                            "flowtrace_agent_source_total{" + c + ",counter=tcpdump_packets_dropped_by_kernel}", 42L)
                    .containsEntry("flowtrace_agent_spool_pending_records{" + c + "}", 7L);
            for (String family : new String[] {"flowtrace_agent_records_total", "flowtrace_agent_source_total"}) {
                assertThat(r.body()).contains("# TYPE " + family + " counter\n").contains("# HELP " + family + " ");
            }

            m.published.add(10);
            spool.set(0);
            Map<String, Long> later =
                    PrometheusText.parse(get(endpoint, "/metrics").body());
            assertThat(later)
                    .containsEntry("flowtrace_agent_records_total{" + c + ",stage=published}", 990L)
                    .containsEntry("flowtrace_agent_spool_pending_records{" + c + "}", 0L);
        }
    }

    @Test
    void escapesLabelValuesAndAnswersOnlyGetOnMetrics() throws Exception {
        AgentMetrics m = new AgentMetrics();
        m.malformed("bad \"option\" \\ length\nnext");
        try (MetricsEndpoint endpoint =
                MetricsEndpoint.start(new InetSocketAddress("127.0.0.1", 0), m, Map.of(), () -> 0)) {
            Map<String, Long> samples =
                    PrometheusText.parse(get(endpoint, "/metrics").body());
            assertThat(samples)
                    .containsEntry("flowtrace_agent_malformed_total{reason=bad \"option\" \\ length\nnext}", 1L)
                    .containsEntry("flowtrace_agent_spool_pending_records{}", 0L);
            assertThat(get(endpoint, "/other").statusCode()).isEqualTo(404);
            HttpResponse<String> post = http.send(
                    HttpRequest.newBuilder(uri(endpoint, "/metrics"))
                            .POST(HttpRequest.BodyPublishers.noBody())
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(post.statusCode()).isEqualTo(405);
        }
    }

    @Test
    void aClientThatSendsEightBytesAndWaitsBlocksNeitherScrapesNorProbesAndIsDropped() throws Exception {
        AgentMetrics m = new AgentMetrics();
        m.read.add(5);
        try (MetricsEndpoint endpoint =
                        MetricsEndpoint.start(new InetSocketAddress("127.0.0.1", 0), m, Map.of(), () -> 0);
                java.net.Socket slow = new java.net.Socket("127.0.0.1", endpoint.port())) {
            slow.getOutputStream().write("GET /met".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            slow.getOutputStream().flush();
            // More stalled clients than the pool has threads: the scrape must still be answered.
            java.util.List<java.net.Socket> more = new java.util.ArrayList<>();
            for (int i = 0; i < MetricsEndpoint.THREADS; i++) {
                java.net.Socket s = new java.net.Socket("127.0.0.1", endpoint.port());
                s.getOutputStream().write("GET /met".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                more.add(s);
            }
            try {
                HttpResponse<String> r = http.sendAsync(
                                HttpRequest.newBuilder(uri(endpoint, "/metrics"))
                                        .timeout(java.time.Duration.ofSeconds(30))
                                        .GET()
                                        .build(),
                                HttpResponse.BodyHandlers.ofString())
                        .get(MetricsEndpoint.REQUEST_TIMEOUT_SECONDS * 3L, java.util.concurrent.TimeUnit.SECONDS);
                assertThat(r.statusCode()).isEqualTo(200);
                assertThat(PrometheusText.parse(r.body()))
                        .containsEntry("flowtrace_agent_records_total{stage=read}", 5L);
                assertThat(get(endpoint, "/healthz").statusCode()).isEqualTo(200);
                // The server gives up on the incomplete request: the stalled connection is closed, not kept forever.
                slow.setSoTimeout((MetricsEndpoint.REQUEST_TIMEOUT_SECONDS * 3) * 1000);
                long start = System.nanoTime();
                int b = slow.getInputStream().read();
                assertThat(b).as("connection closed by the server, no response").isEqualTo(-1);
                assertThat((System.nanoTime() - start) / 1e9).isLessThan(MetricsEndpoint.REQUEST_TIMEOUT_SECONDS * 3.0);
            } finally {
                for (java.net.Socket s : more) {
                    s.close();
                }
            }
        }
    }

    @Test
    void healthzIs200WhenHealthyAnd503WhenTcpdumpKeepsRestarting() throws Exception {
        AgentMetrics m = new AgentMetrics();
        try (MetricsEndpoint endpoint =
                MetricsEndpoint.start(new InetSocketAddress("127.0.0.1", 0), m, Map.of(), () -> 0)) {
            HttpResponse<String> ok = get(endpoint, "/healthz");
            assertThat(ok.statusCode()).isEqualTo(200);
            assertThat(ok.body()).isEqualTo("ok\n");
            m.addSourceCounter("tcpdump_restarts", 3);
            HttpResponse<String> bad = get(endpoint, "/healthz");
            assertThat(bad.statusCode()).isEqualTo(503);
            assertThat(bad.body()).startsWith("tcpdump restarted 3 times in the last 300 s");
        }
    }

    private HttpResponse<String> get(MetricsEndpoint endpoint, String path) throws Exception {
        return http.send(
                HttpRequest.newBuilder(uri(endpoint, path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private static URI uri(MetricsEndpoint endpoint, String path) {
        return URI.create("http://127.0.0.1:" + endpoint.port() + path);
    }
}
