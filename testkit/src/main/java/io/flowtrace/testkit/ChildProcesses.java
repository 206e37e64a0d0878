package io.flowtrace.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
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
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            // the output never contains the passwords: keytool and StorageTool do not echo them
            throw new IllegalStateException(what + " failed: " + out);
        }
    }
}
