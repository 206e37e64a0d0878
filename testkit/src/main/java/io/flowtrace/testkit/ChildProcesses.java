package io.flowtrace.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The JDK tools a test service runs as child processes, from the JVM that runs the test. */
final class ChildProcesses {

    private ChildProcesses() {}

    /** {@code $JAVA_HOME/bin/<tool>} of the running JVM. */
    static String jdkTool(String tool) {
        return Path.of(System.getProperty("java.home"), "bin", tool).toString();
    }

    /** Runs a command to its end (at most 120 s); fails with its output when it exits non-zero. */
    static void run(List<String> command, String what) throws IOException, InterruptedException {
        run(command, Map.of(), what);
    }

    /**
     * As {@link #run(List, String)} with {@code env} added to the child's environment: the place for a
     * secret (keytool's {@code -storepass:env NAME}), which only the child and its user can read, where
     * a command line is readable by every local user in /proc/PID/cmdline.
     */
    static void run(List<String> command, Map<String, String> env, String what)
            throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            // the output never contains the passwords: keytool and StorageTool do not echo them
            throw new IllegalStateException(what + " failed: " + out);
        }
    }
}
