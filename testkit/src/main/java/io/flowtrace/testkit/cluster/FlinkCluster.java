package io.flowtrace.testkit.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.flowtrace.testkit.FlinkTls;
import io.flowtrace.testkit.PrivateDirectory;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Flink standalone session cluster of separate processes, as a Flink distribution's
 * {@code bin/start-cluster.sh} starts it, from {@link FlinkDistribution}'s lib/ only: one JobManager
 * ({@code StandaloneSessionClusterEntrypoint}) and TaskManagers ({@code TaskManagerRunner}), each a
 * JVM with the memory arguments {@code BashJavaUtils} computes from config.yaml (what bin/jobmanager.sh
 * and bin/taskmanager.sh do) and the Java 17 {@code --add-opens}/{@code --add-exports} list of the
 * distribution's config.yaml. Everything binds to 127.0.0.1, and REST, blob server, RPC and data exchange
 * ask for mutual TLS from a keystore made for this cluster in the user's private directory
 * ({@link FlinkTls}): another local user reaches the ports but gets no answer. Jobs are submitted with
 * Flink's own CLI ({@code CliFrontend}, what {@code bin/flink} runs, which reads the keystore from
 * config.yaml), queried through the REST API with the same key pair.
 */
public final class FlinkCluster implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FlinkCluster.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern JOB_ID = Pattern.compile("JobID ([0-9a-f]{32})");

    private final FlinkDistribution flink;
    private final Path home;
    private final Path conf;
    private final int restPort;
    private final List<String> javaOptions;
    private final FlinkTls tls;
    private final HttpClient http;
    private JavaProcess jobManager;
    private final Map<String, JavaProcess> taskManagers = new LinkedHashMap<>();
    private int started;
    private final Map<String, List<String>[]> resourceParams = new HashMap<>();

    /**
     * A cluster in {@code home} (conf/, log/, checkpoints/, savepoints/); {@code config} entries are
     * added to or replace the defaults of config.yaml written there.
     */
    public FlinkCluster(FlinkDistribution flink, Path home, int slotsPerTaskManager, Map<String, String> config)
            throws IOException {
        this.flink = flink;
        this.home = home.toAbsolutePath();
        this.conf = this.home.resolve("conf");
        // Picked, not bound 0: Flink's CLI reads rest.port from config.yaml before any process runs. A
        // squatter on it cannot answer our clients, which trust only this run's certificate (FlinkTls).
        this.restPort = Ports.free();
        // env.java.opts.all, as bin/flink, bin/jobmanager.sh and bin/taskmanager.sh pass it to every JVM
        String opts = config.get("env.java.opts.all");
        this.javaOptions =
                opts == null ? FlinkJvmOptions.JAVA_17 : List.of(opts.trim().split("\\s+"));
        try {
            this.tls = FlinkTls.create(PrivateDirectory.open());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while making the cluster's keystore", e);
        }
        this.http = HttpClient.newBuilder()
                .connectTimeout(Duration.ofSeconds(5))
                .version(HttpClient.Version.HTTP_1_1)
                .sslContext(tls.sslContext())
                .build();
        FlinkConfigYaml.write(conf, this.home, restPort, slotsPerTaskManager, tls, config);
    }

    public Path home() {
        return home;
    }

    public Path confDir() {
        return conf;
    }

    public String restUrl() {
        return "https://127.0.0.1:" + restPort;
    }

    /** The JVM options of every process of the cluster and of its CLI ({@code env.java.opts.all}). */
    public List<String> javaOptions() {
        return javaOptions;
    }

    /** The REST port (HTTPS, client certificate required). */
    public int restPort() {
        return restPort;
    }

    /** The run's key pair: REST, blob server and RPC accept only its holders. */
    public FlinkTls tls() {
        return tls;
    }

    /** Starts the JobManager and {@code taskManagers} TaskManagers; returns when all are registered. */
    public void start(int taskManagers) throws IOException, InterruptedException {
        // As start-cluster.sh: every process at once; TaskManagers retry until the JobManager answers.
        launchJobManager();
        for (int i = 0; i < taskManagers; i++) {
            startTaskManager();
        }
        awaitRest(Duration.ofMinutes(3));
        awaitTaskManagers(taskManagers, Duration.ofMinutes(3));
    }

    /** Starts the JobManager process and waits for its REST endpoint. */
    public void startJobManager() throws IOException, InterruptedException {
        launchJobManager();
        awaitRest(Duration.ofMinutes(3));
    }

    private void launchJobManager() throws IOException, InterruptedException {
        List<String>[] params = resourceParams("GET_JM_RESOURCE_PARAMS");
        List<String> jvm = new ArrayList<>(params[0]);
        jvm.addAll(javaOptions);
        jvm.addAll(FlinkJvmOptions.PEKKO_STARTUP);
        jvm.add("-Dlog4j.configurationFile=" + conf.resolve("log4j.properties").toUri());
        List<String> args = new ArrayList<>(List.of("--configDir", conf.toString()));
        args.addAll(params[1]);
        String name = "jobmanager-" + (++started);
        jobManager = JavaProcess.start(
                name,
                jvm,
                flink.classpath(),
                "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint",
                args,
                Map.of(),
                home.resolve("log/" + name + ".log"));
    }

    /** Starts one more TaskManager process (a replacement after a kill, or one more for a rescale); returns its name. */
    public String startTaskManager() throws IOException, InterruptedException {
        List<String>[] params = resourceParams("GET_TM_RESOURCE_PARAMS");
        List<String> jvm = new ArrayList<>(params[0]);
        jvm.addAll(javaOptions);
        jvm.addAll(FlinkJvmOptions.PEKKO_STARTUP);
        jvm.addAll(FlinkJvmOptions.AVRO_LIMITS);
        jvm.add("-Dlog4j.configurationFile=" + conf.resolve("log4j.properties").toUri());
        List<String> args = new ArrayList<>(List.of("--configDir", conf.toString()));
        args.addAll(params[1]);
        String name = "taskmanager-" + (++started);
        taskManagers.put(
                name,
                JavaProcess.start(
                        name,
                        jvm,
                        flink.classpath(),
                        "org.apache.flink.runtime.taskexecutor.TaskManagerRunner",
                        args,
                        Map.of(),
                        home.resolve("log/" + name + ".log")));
        return name;
    }

    /** The TaskManager processes started so far (dead ones included), by name. */
    public Map<String, JavaProcess> taskManagers() {
        return taskManagers;
    }

    public JavaProcess jobManager() {
        return jobManager;
    }

    /**
     * What bin/jobmanager.sh and bin/taskmanager.sh ask BashJavaUtils: the JVM memory arguments
     * (first result line) and the dynamic -D parameters (second) derived from config.yaml.
     */
    private synchronized List<String>[] resourceParams(String command) throws IOException, InterruptedException {
        List<String>[] cached = resourceParams.get(command);
        if (cached == null) {
            cached = computeResourceParams(command);
            resourceParams.put(command, cached);
        }
        return cached;
    }

    private List<String>[] computeResourceParams(String command) throws IOException, InterruptedException {
        Path log = home.resolve("log/bash-java-utils-" + command + ".log");
        Files.deleteIfExists(log);
        List<String> cmd = List.of(
                JavaProcess.javaBinary(),
                "-cp",
                flink.classpath(),
                "org.apache.flink.runtime.util.bash.BashJavaUtils",
                command,
                "--configDir",
                conf.toString());
        int exit = JavaProcess.run("BashJavaUtils " + command, cmd, Map.of(), log, Duration.ofMinutes(1));
        List<String> results = Files.readAllLines(log).stream()
                .filter(l -> l.startsWith("BASH_JAVA_UTILS_EXEC_RESULT:"))
                .map(l -> l.substring("BASH_JAVA_UTILS_EXEC_RESULT:".length()).strip())
                .toList();
        if (exit != 0 || results.size() < 2) {
            throw new IllegalStateException("BashJavaUtils " + command + " failed (exit " + exit + "); see " + log);
        }
        @SuppressWarnings("unchecked")
        List<String>[] out =
                new List[] {split(results.get(results.size() - 2)), split(results.get(results.size() - 1))};
        return out;
    }

    private static List<String> split(String line) {
        return line.isBlank() ? List.of() : List.of(line.trim().split("\\s+"));
    }

    /** {@code flink run -d JAR args...} with this cluster's conf dir; returns the job id the CLI printed. */
    public String submit(Path jar, List<String> jobArgs) throws IOException, InterruptedException {
        return submit(jar, jobArgs, null);
    }

    /** {@code flink run -d [-s SAVEPOINT] JAR args...}; returns the job id the CLI printed. */
    public String submit(Path jar, List<String> jobArgs, String savepoint) throws IOException, InterruptedException {
        List<String> cliArgs = new ArrayList<>(List.of("run", "-d"));
        if (savepoint != null) {
            cliArgs.addAll(List.of("-s", savepoint));
        }
        cliArgs.add(jar.toString());
        cliArgs.addAll(jobArgs);
        String out = cli("flink-run", cliArgs);
        Matcher m = JOB_ID.matcher(out);
        if (!m.find()) {
            throw new IllegalStateException("flink run printed no job id:\n" + out);
        }
        return m.group(1);
    }

    /** {@code flink stop [--drain] --savepointPath DIR JOB}; returns the savepoint path the CLI printed. */
    public String stopWithSavepoint(String jobId, boolean drain) throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(List.of("stop"));
        if (drain) {
            args.add("--drain");
        }
        args.addAll(
                List.of("--savepointPath", home.resolve("savepoints").toUri().toString(), jobId));
        String out = cli("flink-stop", args);
        Matcher m = Pattern.compile("Savepoint completed\\. Path: (\\S+)").matcher(out);
        if (!m.find()) {
            throw new IllegalStateException("flink stop printed no savepoint path:\n" + out);
        }
        return m.group(1);
    }

    /** Runs Flink's CLI ({@code bin/flink}) with FLINK_CONF_DIR set; returns its output, fails on a non-zero exit. */
    public String cli(String name, List<String> args) throws IOException, InterruptedException {
        Path log = home.resolve("log/" + name + "-" + System.nanoTime() + ".log");
        List<String> cmd = new ArrayList<>(List.of(JavaProcess.javaBinary()));
        cmd.addAll(javaOptions);
        cmd.add("-Dlog4j.configurationFile=" + conf.resolve("log4j.properties").toUri());
        cmd.addAll(List.of("-cp", flink.classpath(), "org.apache.flink.client.cli.CliFrontend"));
        cmd.addAll(args);
        int exit = JavaProcess.run(name, cmd, Map.of("FLINK_CONF_DIR", conf.toString()), log, Duration.ofMinutes(5));
        String out = Files.readString(log, StandardCharsets.UTF_8);
        if (exit != 0) {
            throw new IllegalStateException("flink " + String.join(" ", args) + " exited with " + exit + ":\n" + out);
        }
        return out;
    }

    /** GET on the REST API, as JSON. */
    public JsonNode rest(String path) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create(restUrl() + path))
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException("GET " + path + ": HTTP " + r.statusCode() + " " + r.body());
        }
        return JSON.readTree(r.body());
    }

    /** The job's state: CREATED, RUNNING, RESTARTING, FINISHED, FAILED... */
    public String jobState(String jobId) throws IOException, InterruptedException {
        return rest("/jobs/" + jobId).get("state").asText();
    }

    /** Number of restarts of the job so far (the job's numRestarts metric). */
    public long restarts(String jobId) throws IOException, InterruptedException {
        JsonNode m = rest("/jobs/" + jobId + "/metrics?get=numRestarts");
        return m.isArray() && m.size() > 0 ? m.get(0).get("value").asLong() : 0;
    }

    /** The id of the job's latest completed checkpoint, or -1 before the first. */
    public long latestCompletedCheckpoint(String jobId) throws IOException, InterruptedException {
        JsonNode c = rest("/jobs/" + jobId + "/checkpoints").get("latest").get("completed");
        return c == null || c.isNull() ? -1 : c.get("id").asLong();
    }

    /** The checkpoint or savepoint the job's current attempt was restored from (REST "latest.restored"), or null. */
    public JsonNode restoredFrom(String jobId) throws IOException, InterruptedException {
        JsonNode r = rest("/jobs/" + jobId + "/checkpoints").get("latest").get("restored");
        return r == null || r.isNull() ? null : r;
    }

    /** Completed checkpoints of the job so far. */
    public long completedCheckpoints(String jobId) throws IOException, InterruptedException {
        return rest("/jobs/" + jobId + "/checkpoints")
                .get("counts")
                .get("completed")
                .asLong();
    }

    /** True when every task of the job is RUNNING (not only the job: its tasks may still be deploying). */
    public boolean allTasksRunning(String jobId) throws IOException, InterruptedException {
        JsonNode job = rest("/jobs/" + jobId);
        if (!job.get("state").asText().equals("RUNNING")) {
            return false;
        }
        for (JsonNode v : job.get("vertices")) {
            if (!v.get("status").asText().equals("RUNNING")) {
                return false;
            }
        }
        return true;
    }

    /** Waits until {@code condition} holds, polling every 500 ms; fails after {@code timeout} with {@code what}. */
    public static void await(String what, Duration timeout, Condition condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        Exception last = null;
        while (System.nanoTime() < deadline) {
            try {
                if (condition.holds()) {
                    return;
                }
            } catch (Exception e) {
                last = e;
            }
            Thread.sleep(500);
        }
        throw new IllegalStateException("timed out after " + timeout + " waiting for " + what
                + (last == null ? "" : " (last error: " + last + ")"));
    }

    public void awaitJobState(String jobId, Duration timeout, Predicate<String> state) throws InterruptedException {
        await("job " + jobId + " state", timeout, () -> state.test(jobState(jobId)));
    }

    public void awaitTaskManagers(int count, Duration timeout) throws InterruptedException {
        await(
                count + " registered TaskManagers",
                timeout,
                () -> rest("/overview").get("taskmanagers").asInt() == count);
    }

    private void awaitRest(Duration timeout) throws InterruptedException {
        await("the JobManager's REST endpoint " + restUrl(), timeout, () -> {
            if (!jobManager.isAlive()) {
                throw new IllegalStateException("the JobManager exited; see " + jobManager.log());
            }
            rest("/overview");
            return true;
        });
    }

    /** Stops every process it started, TaskManagers first, by PID. */
    @Override
    public void close() throws InterruptedException {
        for (JavaProcess tm : taskManagers.values()) {
            tm.stop(Duration.ofSeconds(15));
        }
        if (jobManager != null) {
            jobManager.stop(Duration.ofSeconds(15));
        }
        try {
            tls.delete();
        } catch (IOException e) {
            LOG.warn("deleting the keystore {}: {}", tls.keystore(), e.toString());
        }
        LOG.info("Flink cluster in {} stopped", home);
    }

    @FunctionalInterface
    public interface Condition {
        boolean holds() throws Exception;
    }
}
