package io.flowtrace.demo;

import io.flowtrace.cli.FlowtraceCli;
import java.io.IOException;
import java.nio.file.Path;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/** Entry point of {@code ./flowtrace demo}: logs to a file, the terminal gets progress and results only. */
public final class DemoMain {
    private DemoMain() {}

    /** {@code demo.log} in the private directory ({@link RuntimeDir}), overwritten per run; -Dflowtrace.demo.log overrides it. */
    static Path logFile() {
        String override = System.getProperty("flowtrace.demo.log");
        return override != null ? Path.of(override) : RuntimeDir.path().resolve("demo.log");
    }

    public static void main(String[] args) {
        // Before the first logger exists: Flink, Kafka and PostgreSQL log a lot at INFO. log4j's file
        // appender follows a symbolic link; in the checked 0700 directory nobody else can plant one.
        if (System.getProperty("flowtrace.demo.log") == null) {
            try {
                RuntimeDir.open(RuntimeDir.path());
            } catch (IOException e) {
                System.err.println("flowtrace demo: " + e.getMessage());
                System.exit(1);
            }
        }
        System.setProperty("flowtrace.demo.log", logFile().toString());
        if (System.getProperty("log4j2.configurationFile") == null) {
            System.setProperty("log4j2.configurationFile", "flowtrace-demo-log4j2.properties");
        }
        LoggerFactory.getLogger(DemoMain.class)
                .info(
                        "flowtrace demo {} (pid {})",
                        String.join(" ", args),
                        ProcessHandle.current().pid());
        System.exit(FlowtraceCli.withErrorHandling(new CommandLine(new DemoCommand()))
                .execute(args));
    }
}
