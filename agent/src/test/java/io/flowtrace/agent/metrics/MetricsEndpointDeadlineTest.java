package io.flowtrace.agent.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The endpoint under clients that never finish their request, and /livez (no exposition parsing: these
 * run without the Prometheus Python client that MetricsEndpointTest needs).
 */
class MetricsEndpointDeadlineTest {
    private final HttpClient http = HttpClient.newHttpClient();

    /**
     * Four new half-sent requests every 2 s, for 8 s: every scrape in between is answered within a
     * second (with 4 threads and a 10 s deadline each scrape waited ≈ 10 s), and every stalled
     * connection is dropped by the server within 4 s of its opening (the deadline plus the timer's second).
     */
    @Test
    void fourHalfSentRequestsEveryTwoSecondsStallNoScrape() throws Exception {
        AgentMetrics m = new AgentMetrics();
        java.util.List<java.net.Socket> stalled = new java.util.ArrayList<>();
        try (MetricsEndpoint endpoint =
                MetricsEndpoint.start(new InetSocketAddress("127.0.0.1", 0), m, Map.of(), () -> 0)) {
            for (int round = 0; round < 4; round++) {
                long roundStart = System.nanoTime();
                for (int i = 0; i < 4; i++) {
                    java.net.Socket s = new java.net.Socket("127.0.0.1", endpoint.port());
                    s.getOutputStream().write("GET /met".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                    s.getOutputStream().flush();
                    stalled.add(s);
                }
                Thread.sleep(200); // the server has taken the four connections
                long start = System.nanoTime();
                HttpResponse<String> r = http.sendAsync(
                                HttpRequest.newBuilder(uri(endpoint, "/metrics"))
                                        .GET()
                                        .build(),
                                HttpResponse.BodyHandlers.ofString())
                        .get(30, java.util.concurrent.TimeUnit.SECONDS);
                assertThat(r.statusCode()).isEqualTo(200);
                assertThat((System.nanoTime() - start) / 1e9)
                        .as("scrape of round %d, seconds", round)
                        .isLessThan(1.0);
                Thread.sleep(Math.max(0, 2000 - (System.nanoTime() - roundStart) / 1_000_000));
            }
            java.net.Socket first = stalled.get(0);
            first.setSoTimeout(1000);
            assertThat(first.getInputStream().read())
                    .as("the first stalled connection was dropped")
                    .isEqualTo(-1);
        } finally {
            for (java.net.Socket s : stalled) {
                s.close();
            }
        }
    }

    @Test
    void livezStaysAliveWhileNothingIsPublished() throws Exception {
        AgentMetrics m = new AgentMetrics();
        try (MetricsEndpoint endpoint =
                MetricsEndpoint.start(new InetSocketAddress("127.0.0.1", 0), m, Map.of(), () -> 0)) {
            HttpResponse<String> alive = get(endpoint, "/livez");
            assertThat(alive.statusCode()).isEqualTo(200);
            assertThat(alive.body()).isEqualTo("alive\n");
            m.addSourceCounter("tcpdump_restarts", 3);
            assertThat(get(endpoint, "/livez").statusCode()).isEqualTo(503);
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
