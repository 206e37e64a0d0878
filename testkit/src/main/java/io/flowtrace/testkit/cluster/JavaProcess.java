package io.flowtrace.testkit.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A JVM of its own (JobManager, TaskManager, Kafka broker, Flink CLI, agent), its output in a log
 * file, stopped by its PID: {@link #kill()} is {@code kill -9}, {@link #stop} a SIGTERM and then a
 * {@code kill -9} if it is still alive after the grace period.
 */
public final class JavaProcess implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(JavaProcess.class);

    private final String name;
    private final Process process;
    private final Path log;

    private JavaProcess(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    /** The java executable of this JVM: every process runs on the same JDK as the caller. */
    public static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /**
     * Starts {@code java jvmArgs -cp classpath mainClass args}, stdout and stderr appended to {@code log}.
     * {@code env} entries are added to this process's environment.
     */
    public static JavaProcess start(
            String name,
            List<String> jvmArgs,
            String classpath,
            String mainClass,
            List<String> args,
            Map<String, String> env,
            Path log)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(javaBinary());
        command.addAll(jvmArgs);
        command.add("-cp");
        command.add(classpath);
        command.add(mainClass);
        command.addAll(args);
        return start(name, command, env, log);
    }

    /** Starts any command, stdout and stderr appended to {@code log}. */
    public static JavaProcess start(String name, List<String> command, Map<String, String> env, Path log)
            throws IOException {
        Files.createDirectories(log.toAbsolutePath().getParent());
        ProcessBuilder pb = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.environment().putAll(env);
        Process p = pb.start();
        LOG.info("started {} (pid {}), log {}", name, p.pid(), log);
        return new JavaProcess(name, p, log);
    }

    /** Runs a command to its end within {@code timeout}; returns its exit code (the output is in {@code log}). */
    public static int run(String name, List<String> command, Map<String, String> env, Path log, Duration timeout)
            throws IOException, InterruptedException {
        try (JavaProcess p = start(name, command, env, log)) {
            if (!p.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(name + " did not end within " + timeout + "; see " + log);
            }
            return p.process.exitValue();
        }
    }

    public String name() {
        return name;
    }

    public long pid() {
        return process.pid();
    }

    public Path log() {
        return log;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Waits until the process has exited. */
    public void waitFor() throws InterruptedException {
        process.waitFor();
    }

    /** The exit code, or -1 while it runs. */
    public int exitCode() {
        return process.isAlive() ? -1 : process.exitValue();
    }

    public String logText() throws IOException {
        return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
    }

    /** {@code kill -9}: a crash, nothing runs in the process afterwards. Waits until it is gone. */
    public void kill() throws InterruptedException {
        if (process.isAlive()) {
            LOG.info("kill -9 {} (pid {})", name, process.pid());
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }

    /** SIGTERM, then {@code kill -9} after {@code grace}. */
    public void stop(Duration grace) throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warn("{} (pid {}) still alive {} after SIGTERM: kill -9", name, process.pid(), grace);
                kill();
            }
        }
    }

    @Override
    public void close() throws InterruptedException {
        stop(Duration.ofSeconds(20));
    }
}
