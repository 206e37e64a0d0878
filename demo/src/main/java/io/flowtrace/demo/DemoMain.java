package io.flowtrace.demo;

import io.flowtrace.cli.FlowtraceCli;
import java.nio.file.Path;
import picocli.CommandLine;

/** Entry point of {@code ./flowtrace demo}: logs to a file, the terminal gets progress and results only. */
public final class DemoMain {
    private DemoMain() {
    }

    static Path logFile() {
        String user = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9._-]", "_");
        return Path.of(System.getProperty("flowtrace.demo.log",
                Path.of(System.getProperty("java.io.tmpdir"), "flowtrace-demo-" + user + ".log").toString()));
    }

    public static void main(String[] args) {
        // Before the first logger exists: Flink, Kafka and PostgreSQL log a lot at INFO.
        System.setProperty("flowtrace.demo.log", logFile().toString());
        if (System.getProperty("log4j2.configurationFile") == null) {
            System.setProperty("log4j2.configurationFile", "flowtrace-demo-log4j2.properties");
        }
        System.exit(FlowtraceCli.withErrorHandling(new CommandLine(new DemoCommand())).execute(args));
    }
}
