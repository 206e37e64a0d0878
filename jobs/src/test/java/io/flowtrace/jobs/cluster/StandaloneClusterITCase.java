package io.flowtrace.jobs.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.flowtrace.jobs.config.JobOption;
import io.flowtrace.testkit.ListeningSockets;
import io.flowtrace.testkit.cluster.FlinkCluster;
import io.flowtrace.testkit.cluster.JavaProcess;
import io.flowtrace.testkit.cluster.KafkaServer;
import io.flowtrace.testkit.cluster.StandaloneStack;
import io.flowtrace.testkit.cluster.ZooKeeperServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job jar as built, on a standalone Flink cluster of separate processes (one JobManager, two
 * TaskManagers with one slot each), a Kafka broker process and PostgreSQL, fed by the agent process
 * replaying committed captures; submitted with {@code flink run -d} and ended with
 * {@code flink stop --drain} as docs/operations.md describes. The cluster runs with ZooKeeper high
 * availability (a ZooKeeper server process), so a killed JobManager can be succeeded. The truth is
 * {@code flowtrace analyze --json} of the same captures; the fault runs must also equal the
 * failure-free run's windows.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class StandaloneClusterITCase {
    private static final Logger LOG = LoggerFactory.getLogger(StandaloneClusterITCase.class);
    /** ~98 s of short connections (240 flows over two 1-minute windows), replayed 5× faster. */
    static final String CAPTURE = "tcp/short-conns.sender.pcap.gz";

    static final double PACE = 5;

    @RegisterExtension
    static final StandaloneStack STACK = StandaloneStack.withZooKeeperHa(2, 1);

    /** The failure-free run's window rows, the reference of the fault runs. */
    private static Map<String, Object> reference;

    /**
     * What another local user (uid 65534) gets from the cluster that root runs, every port being on
     * 127.0.0.1 where every user reaches it: the REST endpoint answers neither {@code GET /overview} nor
     * {@code POST /jobs} (the request that ran another user's code as root): over HTTPS without the run's
     * client certificate no HTTP answer at all (curl's status 000), over HTTP at most Flink's redirect to
     * https (301); without TLS both got an answer (the overview with 200, the submission 400 for the
     * missing job graph). Every other port of the JobManager and of a TaskManager (blob server, RPC, data
     * exchange; found from the kernel's socket table of the process) shows the run's certificate and then
     * refuses the client for having none. The keystore and config.yaml (its password) are unreadable.
     * The project's own client, with the keystore, gets the overview.
     */
    @Test
    @Order(0)
    void anotherLocalUserGetsNoAnswerFromRestBlobServerOrRpc() throws Exception {
        FlinkCluster flink = STACK.flink();
        assertThat(flink.rest("/overview").get("taskmanagers").asInt())
                .as("TaskManagers in the overview our own client reads")
                .isEqualTo(2);
        AnotherLocalUser.assumeAvailable();
        String rest = "127.0.0.1:" + flink.restPort();
        for (String scheme : List.of("http", "https")) {
            String refused = scheme.equals("http") ? "status=301" : "status=000";
            assertThat(AnotherLocalUser.curl("GET", scheme + "://" + rest + "/overview"))
                    .as("GET %s/overview as uid 65534", scheme)
                    .isIn("status=000", refused);
            assertThat(AnotherLocalUser.curl("POST", scheme + "://" + rest + "/jobs"))
                    .as("POST %s/jobs as uid 65534", scheme)
                    .isIn("status=000", refused);
        }
        java.util.Set<Integer> ports = new java.util.TreeSet<>();
        for (JavaProcess p : List.of(
                flink.jobManager(), flink.taskManagers().values().iterator().next())) {
            ListeningSockets.ofProcess(p.pid()).forEach(l -> ports.add(l.port()));
        }
        ports.remove(flink.restPort());
        // JobManager: RPC, blob server (and the metrics RPC); TaskManager: RPC, data exchange
        assertThat(ports)
                .as("ports of the JobManager and a TaskManager besides REST")
                .hasSizeGreaterThanOrEqualTo(3);
        for (int port : ports) {
            String hello = AnotherLocalUser.run(
                    List.of("sh", "-c", "echo | timeout 20 openssl s_client -connect 127.0.0.1:" + port + " 2>&1"));
            assertThat(hello)
                    .as("TLS handshake of uid 65534 with port %d", port)
                    .contains("CN = localhost");
            assertThat(hello).as("port %d refuses uid 65534", port).containsIgnoringCase("alert");
        }
        for (String file : List.of(
                flink.tls().keystore().toString(),
                flink.confDir().resolve("config.yaml").toString())) {
            assertThat(AnotherLocalUser.run(List.of("cat", file)))
                    .as("uid 65534 reads %s", file)
                    .contains("Permission denied");
        }
    }

    /**
     * The HA znodes (leaders, submitted jobs, checkpoint pointers) as another local user (uid 65534) sees
     * them with ZooKeeper's own CLI from Flink's lib/: without a SASL login the server closes the session
     * before the first request; with a guessed password the login fails; nothing it tried to create is
     * there afterwards. The JAAS files are unreadable to it. The cluster's own login (the run's
     * {@code Client} section) lists the znodes, and they carry the {@code creator} ACL of the SASL user.
     * Before: any local user listed, created and changed them without a login.
     */
    @Test
    @Order(0)
    void anotherLocalUserCannotReadOrWriteTheHaZnodes() throws Exception {
        ZooKeeperServer zk = STACK.zooKeeper();
        String ha = "/flink/flowtrace"; // high-availability.zookeeper.path.root (default /flink) + cluster-id
        String ours = zooKeeperCli(zk.cliCommand(zk.clientJaasFile(), "ls", ha));
        assertThat(ours).as("our login lists the HA znodes").containsPattern("\\[[^\\]]*leader[^\\]]*\\]");
        assertThat(zooKeeperCli(zk.cliCommand(zk.clientJaasFile(), "getAcl", ha)))
                .as("ACL of %s", ha)
                .contains("'sasl,'" + ZooKeeperServer.USER)
                .doesNotContain("'world,'anyone");
        AnotherLocalUser.assumeAvailable();
        String anonymous = AnotherLocalUser.run(zk.cliCommand(null, "ls", ha));
        assertThat(anonymous)
                .as("uid 65534 without a login")
                .contains("Session closed because client failed to authenticate")
                .doesNotContain("leader");
        assertThat(AnotherLocalUser.run(zk.cliCommand(null, "create", ha + "/planted", "x")))
                .contains("Session closed because client failed to authenticate");
        Path dir = Files.createTempDirectory("flowtrace-zk-guess");
        try {
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
            Path guess = Files.writeString(
                    dir.resolve("guess.jaas"), ZooKeeperServer.clientJaas(ZooKeeperServer.USER, "flowtrace"));
            Files.setPosixFilePermissions(guess, PosixFilePermissions.fromString("rw-r--r--"));
            assertThat(AnotherLocalUser.run(zk.cliCommand(guess, "create", ha + "/planted", "x")))
                    .as("uid 65534 with a guessed password")
                    .contains("AuthFailed")
                    .doesNotContain("Created");
            assertThat(AnotherLocalUser.run(zk.cliCommand(guess, "ls", ha))).doesNotContain("leader");
        } finally {
            Files.walk(dir)
                    .sorted(java.util.Comparator.reverseOrder())
                    .forEach(f -> f.toFile().delete());
        }
        assertThat(zooKeeperCli(zk.cliCommand(zk.clientJaasFile(), "ls", ha)))
                .as("the HA znodes after uid 65534's attempts")
                .doesNotContain("planted");
        assertThat(AnotherLocalUser.run(List.of("cat", zk.clientJaasFile().toString())))
                .as("uid 65534 reads the JAAS file")
                .contains("Permission denied");
    }

    /**
     * The broker as another local user (uid 65534) meets it, and a squatter on a port our clients were
     * told is the broker's. The broker takes only SASL_SSL/SCRAM-SHA-512: a plaintext client of uid 65534
     * can neither produce nor read (no answer in its timeout); over SASL_SSL, trusting the broker's
     * certificate (public: the broker shows it to anyone), a guessed password is refused by SCRAM; the
     * topic holds nothing afterwards. The KRaft controller port shows the run's certificate and refuses
     * a client without one. The client files (they hold the password) and server.properties are
     * unreadable to it. A TLS server of uid 65534 with a certificate for 127.0.0.1 on the port our client
     * was given fails our client's handshake (its key is not the run's), so the password never leaves in
     * any form. Before: a plaintext broker; uid 65534 produced and read, and a squatter got every request.
     */
    @Test
    @Order(0)
    void anotherLocalUserCannotUseTheBrokerNorPassForIt() throws Exception {
        KafkaServer kafka = STACK.kafka();
        String topic = "attempts";
        kafka.createTopics(1, topic);
        AnotherLocalUser.assumeAvailable();
        Path dir = KafkaAsAnotherUser.sharedDirectory();
        try {
            String plaintext = KafkaAsAnotherUser.attempt(dir, kafka.bootstrapServers(), topic, null, null);
            assertThat(plaintext)
                    .as("plaintext client of uid 65534")
                    .contains("produce: refused", "consume: refused")
                    .doesNotContain(": ok");
            Path cert = Files.copy(kafka.certificate(), dir.resolve("broker.crt"));
            Files.setPosixFilePermissions(cert, PosixFilePermissions.fromString("rw-r--r--"));
            String guessed = KafkaAsAnotherUser.attempt(dir, kafka.bootstrapServers(), topic, cert, "flowtrace");
            assertThat(guessed)
                    .as("SASL_SSL client of uid 65534 with a guessed password")
                    .contains(
                            "produce: refused SaslAuthenticationException",
                            "consume: refused SaslAuthenticationException")
                    .contains("invalid credentials with SASL mechanism SCRAM-SHA-512");
            assertThat(kafka.readCommitted(topic))
                    .as("records in %s after uid 65534's attempts", topic)
                    .isEmpty();
            String controller = AnotherLocalUser.run(List.of(
                    "sh",
                    "-c",
                    "sleep 3 | timeout 20 openssl s_client -tls1_2 -connect 127.0.0.1:" + kafka.controllerPort()
                            + " 2>&1"));
            assertThat(controller).as("the controller port to uid 65534").contains("CN = localhost");
            assertThat(controller).containsIgnoringCase("alert");
            for (Path file : List.of(
                    kafka.clientConfigFile(),
                    kafka.jobConfigFile(),
                    kafka.home().resolve("server.properties"))) {
                assertThat(AnotherLocalUser.run(List.of("cat", file.toString())))
                        .as("uid 65534 reads %s", file)
                        .contains("Permission denied");
            }
            KafkaAsAnotherUser.Squatter squatter = KafkaAsAnotherUser.squatter(dir);
            try {
                java.util.Properties ours = kafka.clientProperties();
                ours.put("bootstrap.servers", "127.0.0.1:" + squatter.port());
                ours.put("request.timeout.ms", "10000");
                ours.put("default.api.timeout.ms", "20000");
                FlinkCluster.await(
                        "the squatter listening",
                        Duration.ofSeconds(30),
                        () -> !ListeningSockets.onPort(squatter.port()).isEmpty());
                try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(ours)) {
                    assertThatThrownBy(() -> admin.describeCluster().nodes().get())
                            .as("our client against the squatter on port %d", squatter.port())
                            .hasMessageContaining("SslAuthenticationException")
                            .rootCause()
                            .hasMessageContaining("certification path");
                }
            } finally {
                squatter.process().destroy();
                squatter.process().waitFor();
            }
            String received = Files.readString(squatter.log());
            assertThat(received).as("what the squatter received").doesNotContain("flowtrace", "SCRAM");
        } finally {
            Files.walk(dir)
                    .sorted(java.util.Comparator.reverseOrder())
                    .forEach(f -> f.toFile().delete());
        }
    }

    /** ZooKeeper's CLI as this user; its output. */
    private static String zooKeeperCli(List<String> command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        return out;
    }

    @Test
    @Order(1)
    void submittedJarWritesWhatTheOfflineAnalysisReports() throws Exception {
        ClusterRun run = new ClusterRun(STACK, "clean").capture(CAPTURE, "cl");
        Map<String, JsonNode> offline = run.start();
        List<JavaProcess> agents = run.startAgents(PACE);
        run.finish(agents, Duration.ofMinutes(3), Duration.ofMinutes(3));

        run.assertFlowRowsEqualTheOfflineAnalysis(offline);
        run.assertWindowsAddUp(offline.size());
        run.assertCommittedFlowRecords(offline);
        assertThat(STACK.flink().restarts(run.jobId))
                .as("restarts of a failure-free run")
                .isZero();
        reference = run.windowTotals();
        LOG.info("clean run: {} flows, {} window rows", offline.size(), reference.size());
    }

    @Test
    @Order(2)
    void taskManagerKilledMidStreamIsReplacedAndTheOutputEqualsTheCleanRun() throws Exception {
        ClusterRun run = new ClusterRun(STACK, "tmkill").capture(CAPTURE, "cl");
        Map<String, JsonNode> offline = run.start();
        List<JavaProcess> agents = run.startAgents(PACE);
        FlinkCluster flink = STACK.flink();
        // Mid-stream: output written and a checkpoint completed, the agent still publishing.
        run.awaitMidStream();
        assertThat(agents.get(0).isAlive())
                .as("the agent is still publishing at the kill")
                .isTrue();
        JavaProcess victim = flink.taskManagers().values().stream()
                .filter(JavaProcess::isAlive)
                .findFirst()
                .orElseThrow();
        long killed = System.nanoTime();
        victim.kill();
        flink.startTaskManager(); // a standalone cluster does not replace it: an operator (or systemd) does
        FlinkCluster.await(
                "the job restarted on the replacement",
                Duration.ofMinutes(3),
                () -> flink.restarts(run.jobId) > 0 && flink.allTasksRunning(run.jobId));
        long recoveredMs = (System.nanoTime() - killed) / 1_000_000;
        LOG.info("TaskManager {} killed; job running again on the replacement {} ms later", victim.name(), recoveredMs);

        run.finish(agents, Duration.ofMinutes(3), Duration.ofMinutes(3));

        run.assertFlowRowsEqualTheOfflineAnalysis(offline);
        run.assertWindowsAddUp(offline.size());
        run.assertCommittedFlowRecords(offline);
        if (reference != null) {
            assertThat(run.windowTotals())
                    .as("window rows of the run with a kill -9 vs the failure-free run")
                    .isEqualTo(reference);
        }
    }

    /**
     * The input pauses for three idleness timeouts while one partition is 25 s of capture time ahead
     * of the other (as when one agent or partition lags), then the rest comes, then it pauses again
     * before {@code flink stop --drain}. With Flink's own idleness the all-idle watermark jumps to the
     * leading partition's, and the lagging partition's packets and final flow records become late
     * (late_packets, windows missing flows); and the drain of an idle source never delivers its final
     * watermark (FLINK-40499), leaving flows open. Neither may happen.
     */
    @Test
    @Order(3)
    void inputPausesLongerThanTheIdlenessTimeoutLoseNothing() throws Exception {
        long idlenessMs = 4000;
        ClusterRun run = new ClusterRun(STACK, "pause")
                .with(JobOption.IDLENESS_MS, idlenessMs)
                .capture(CAPTURE, "cl-pause");
        Map<String, JsonNode> offline = run.start();
        List<PausedInput.Rec> all = PausedInput.records(CAPTURE, "cl-pause", ClusterRun.PARALLELISM);
        // First each partition's first packet alone. A split that has had no record within the
        // idleness timeout is taken for an empty partition and goes idle (SplitIdleness); on a loaded
        // machine the first fetch of a new split can take longer than 4 s, and whichever split then
        // delivers first sets event time alone: with partition 0 25 s ahead in the first phase, that
        // made 1,444 of partition 1's packets late, a start-up effect, not a pause. These two packets
        // are within the out-of-orderness of each other, so neither can be late, and afterwards each
        // split has had a record and only the pauses are under test.
        List<PausedInput.Rec> phase0 = new java.util.ArrayList<>();
        for (int p = 0; p < ClusterRun.PARALLELISM; p++) {
            int partition = p;
            phase0.add(all.stream()
                    .filter(r -> r.partition() == partition)
                    .findFirst()
                    .orElseThrow());
        }
        long outOfOrdernessMs = Long.parseLong(run.options.get(JobOption.OUT_OF_ORDERNESS_MS));
        assertThat(Math.abs(phase0.get(0).timeMs() - phase0.get(1).timeMs()))
                .as("capture time between the partitions' first packets")
                .isLessThan(outOfOrdernessMs);
        List<PausedInput.Rec> input =
                all.stream().filter(r -> !phase0.contains(r)).toList();
        long first = all.get(0).timeMs();
        long mid = first + 40_000;
        java.util.function.Predicate<PausedInput.Rec> early =
                r -> r.timeMs() < mid || (r.partition() == 0 && r.timeMs() < mid + 25_000);
        List<PausedInput.Rec> phase1 = input.stream().filter(early).toList();
        List<PausedInput.Rec> phase2 = input.stream().filter(early.negate()).toList();
        assertThat(phase2)
                .as("the second phase has packets of both partitions")
                .extracting(PausedInput.Rec::partition)
                .contains(0, 1);

        PausedInput.publish(STACK.kafka(), run.topic(JobOption.PACKETS_TOPIC), phase0);
        run.awaitConsumed(Duration.ofMinutes(2));
        PausedInput.publish(STACK.kafka(), run.topic(JobOption.PACKETS_TOPIC), phase1);
        run.awaitConsumed(Duration.ofMinutes(2));
        Thread.sleep(3 * idlenessMs);
        PausedInput.publish(STACK.kafka(), run.topic(JobOption.PACKETS_TOPIC), phase2);
        run.awaitConsumed(Duration.ofMinutes(2));
        Thread.sleep(3 * idlenessMs);
        run.drain();

        assertThat(run.query("SELECT coalesce(sum(late_packets), 0) AS late FROM flow_summary")
                        .get(0)
                        .get("late"))
                .as("late packets")
                .isEqualTo(java.math.BigDecimal.ZERO);
        run.assertFlowRowsEqualTheOfflineAnalysis(offline);
        run.assertWindowsAddUp(offline.size());
        run.assertCommittedFlowRecords(offline);
    }

    /**
     * {@code kill -9} of the JobManager mid-stream and a new JobManager process started on the same
     * configuration (a standalone cluster does not restart it; systemd or an operator does): with
     * ZooKeeper HA it takes the leadership once the dead one's session expires, recovers the job
     * from ZooKeeper and restores its latest completed checkpoint; the TaskManagers stay and
     * register with it. The output must equal the failure-free run's.
     */
    @Test
    @Order(4)
    void jobManagerKilledMidStreamIsSucceededAndTheJobResumesFromItsLastCheckpoint() throws Exception {
        ClusterRun run = new ClusterRun(STACK, "jmkill").capture(CAPTURE, "cl");
        Map<String, JsonNode> offline = run.start();
        List<JavaProcess> agents = run.startAgents(PACE);
        FlinkCluster flink = STACK.flink();
        run.awaitMidStream();
        long lastCheckpoint = flink.latestCompletedCheckpoint(run.jobId);
        assertThat(agents.get(0).isAlive())
                .as("the agent is still publishing at the kill")
                .isTrue();
        List<JavaProcess> taskManagers = flink.taskManagers().values().stream()
                .filter(JavaProcess::isAlive)
                .toList();
        JavaProcess dead = flink.jobManager();
        long killed = System.nanoTime();
        dead.kill();
        flink.startJobManager();
        FlinkCluster.await(
                "the job recovered by the new JobManager",
                Duration.ofMinutes(4),
                () -> flink.allTasksRunning(run.jobId));
        long recoveredMs = (System.nanoTime() - killed) / 1_000_000;
        JsonNode restored = flink.restoredFrom(run.jobId);
        LOG.info(
                "JobManager {} killed; job {} running again under {} {} ms later, restored from {}",
                dead.name(),
                run.jobId,
                flink.jobManager().name(),
                recoveredMs,
                restored);
        assertThat(restored).as("the checkpoint the recovered job restored").isNotNull();
        assertThat(restored.get("is_savepoint").asBoolean())
                .as("restored from a savepoint")
                .isFalse();
        assertThat(restored.get("id").asLong())
                .as("restored checkpoint id vs the last completed before the kill")
                .isGreaterThanOrEqualTo(lastCheckpoint);
        assertThat(taskManagers)
                .as("TaskManager processes after the JobManager kill")
                .allMatch(JavaProcess::isAlive);

        run.finish(agents, Duration.ofMinutes(3), Duration.ofMinutes(3));

        run.assertFlowRowsEqualTheOfflineAnalysis(offline);
        run.assertWindowsAddUp(offline.size());
        run.assertCommittedFlowRecords(offline);
        if (reference != null) {
            assertThat(run.windowTotals())
                    .as("window rows of the run with a JobManager kill vs the failure-free run")
                    .isEqualTo(reference);
        }
    }
}
