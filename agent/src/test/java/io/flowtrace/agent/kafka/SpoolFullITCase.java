package io.flowtrace.agent.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.agent.metrics.AgentMetrics;
import io.flowtrace.agent.spool.DiskSpool;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No broker at all (a closed local port): every record is refused by the producer and spooled
 * until the spool's limit; the rest are dropped, counted and announced on stderr; closing leaves
 * the spooled records for the next run. Takes ~15 s, most of it the 5 s metadata wait at start
 * and closing a producer that never reached a broker.
 */
class SpoolFullITCase {
    @TempDir
    Path dir;

    @Test
    void dropsAndCountsWhatDoesNotFitAndSaysSoOnStderr() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        AgentMetrics metrics = new AgentMetrics();
        DiskSpool spool = DiskSpool.open(dir, 10_000);
        SpoolingPublisher publisher = new SpoolingPublisher(
                new KafkaProducer<>(ProducerSettings.build("127.0.0.1:" + closedPort, null, null, "spool-full-it")),
                "t",
                spool,
                metrics,
                0,
                Duration.ofSeconds(1));
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream saved = System.err;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            for (int i = 0; i < 200; i++) {
                publisher.publish("key".getBytes(StandardCharsets.UTF_8), new byte[100]);
            }
        } finally {
            System.setErr(saved);
        }
        publisher.close();

        // 8-byte segment header + n × (12 + 3 + 100) ≤ 10 000 → 86 fit
        assertThat(metrics.spooled.sum()).isEqualTo(86);
        assertThat(metrics.dropped.sum()).isEqualTo(200 - 86);
        assertThat(metrics.published.sum()).isZero();
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("SPOOL FULL").contains("DROPPING");
        try (DiskSpool reopened = DiskSpool.open(dir, 10_000)) {
            assertThat(reopened.pendingRecords()).as("kept for the next run").isEqualTo(86);
        }
    }
}
