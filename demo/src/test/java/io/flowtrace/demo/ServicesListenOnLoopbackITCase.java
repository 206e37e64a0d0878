package io.flowtrace.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.jobs.config.JobConfig;
import io.flowtrace.testkit.ListeningSockets;
import io.flowtrace.testkit.ListeningSockets.Listener;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every socket the demo listens on is bound to 127.0.0.1, as the kernel reports it (/proc/net/tcp*):
 * the Kafka broker and its KRaft controller, PostgreSQL (its own process) and the MiniCluster with the
 * demo's Flink configuration (REST, RPC, blob server, shuffle). And, on the same MiniCluster, what another
 * local user (uid 65534 with {@code setpriv}, when this runs as root as CI does) gets from its REST endpoint
 * and blob server: no HTTP answer at all, with or without TLS, because both ask for the run's client
 * certificate.
 */
class ServicesListenOnLoopbackITCase {

    @Test
    void kafkaPostgresAndTheMiniClusterListenOnLoopbackOnly(@TempDir Path tmp) throws Exception {
        List<Listener> before = ListeningSockets.ofThisProcess();
        try (EmbeddedServices services = new EmbeddedServices()) {
            services.start(RuntimeDir.open(tmp.resolve("private")));
            JobConfig config = DemoJob.config(
                    services.bootstrapServers(),
                    services.jdbcUrl(),
                    services.passwordFile(),
                    tmp.resolve("checkpoints"),
                    1);
            MiniCluster flink = new MiniCluster(new MiniClusterConfiguration.Builder()
                    .setConfiguration(DemoJob.flinkConfiguration(config, services.flinkTls()))
                    .setNumTaskManagers(1)
                    .setNumSlotsPerTaskManager(1)
                    .build());
            flink.start();
            try {
                List<Listener> opened = new ArrayList<>(ListeningSockets.ofThisProcess());
                opened.removeAll(before);
                int kafkaPort = Integer.parseInt(services.bootstrapServers().replaceAll(".*:", ""));
                int restPort = flink.getRestAddress().get().getPort();
                assertThat(opened).extracting(Listener::port).contains(kafkaPort, restPort);
                // broker + controller at least; Flink's REST and whatever else the MiniCluster opens
                assertThat(opened).hasSizeGreaterThanOrEqualTo(3);
                assertThat(opened)
                        .allSatisfy(
                                l -> assertThat(l.isLoopbackV4()).as("%s", l).isTrue());

                List<Listener> postgres = ListeningSockets.onPort(services.postgresPort());
                assertThat(postgres).isNotEmpty();
                assertThat(postgres)
                        .allSatisfy(l -> assertThat(l.isLoopbackV4())
                                .as("PostgreSQL %s", l)
                                .isTrue());
                anotherUserGetsNoAnswer(restPort, flink.getClusterInformation().getBlobServerPort());
            } finally {
                flink.close();
            }
        }
    }

    /**
     * uid 65534 asks the REST endpoint for its overview and submits a job ({@code POST /jobs}, the request
     * that ran another user's code as root), over HTTP and over HTTPS without the run's certificate: curl
     * prints HTTP status 000 when no HTTP response came back; plain HTTP gets at most Flink's redirect to
     * https (301). Without TLS, Flink answers both over HTTP (the overview with 200). The blob
     * server answers a TLS client with its certificate and then refuses it for having none.
     */
    private static void anotherUserGetsNoAnswer(int restPort, int blobPort) throws Exception {
        if (RuntimeDir.currentUid() != 0 || !Files.isExecutable(Path.of("/usr/bin/setpriv"))) {
            return; // the second user needs root and setpriv (CI has both)
        }
        String rest = "127.0.0.1:" + restPort;
        for (String scheme : List.of("http", "https")) {
            String overview = asNobody(List.of(
                    "curl",
                    "-sk",
                    "--max-time",
                    "20",
                    "-o",
                    "/dev/null",
                    "-w",
                    "status=%{http_code}",
                    scheme + "://" + rest + "/overview"));
            // plain HTTP on a TLS REST port gets Flink's redirect to https (301, no content), nothing else
            String refused = scheme.equals("http") ? "status=301" : "status=000";
            assertThat(overview).as("GET %s/overview", scheme).isIn("status=000", refused);
            String submit = asNobody(List.of(
                    "curl",
                    "-sk",
                    "--max-time",
                    "20",
                    "-o",
                    "/dev/null",
                    "-w",
                    "status=%{http_code}",
                    "-X",
                    "POST",
                    "-H",
                    "Content-Type: application/json",
                    "--data-binary",
                    "{\"jobGraphFileName\":\"job.bin\"}",
                    scheme + "://" + rest + "/jobs"));
            assertThat(submit).as("POST %s/jobs", scheme).isIn("status=000", refused);
        }
        String blob = asNobody(
                List.of("sh", "-c", "echo | timeout 20 openssl s_client -connect 127.0.0.1:" + blobPort + " 2>&1"));
        assertThat(blob).contains("CN = localhost").containsIgnoringCase("alert");
    }

    private static String asNobody(List<String> command) throws Exception {
        List<String> full =
                new ArrayList<>(List.of("setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", "--"));
        full.addAll(command);
        Process p = new ProcessBuilder(full).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return out.strip();
    }
}
