package io.flowtrace.testkit.cluster;

import io.flowtrace.testkit.FlinkTls;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;

/** The conf/ directory of a {@link FlinkCluster}: config.yaml and log4j.properties. */
final class FlinkConfigYaml {
    private FlinkConfigYaml() {}

    /**
     * Writes {@code conf}/config.yaml with the cluster's defaults, the mutual TLS entries of {@code tls}
     * and then {@code config} (added or replacing). config.yaml holds the keystore's password, so conf/
     * is this user's alone: 0700, the file created 0600.
     */
    static void write(
            Path conf, Path home, int restPort, int slotsPerTaskManager, FlinkTls tls, Map<String, String> config)
            throws IOException {
        Files.createDirectories(conf);
        Files.setPosixFilePermissions(conf, PosixFilePermissions.fromString("rwx------"));
        Map<String, String> c = new LinkedHashMap<>();
        c.put("jobmanager.rpc.address", "127.0.0.1");
        c.put("jobmanager.rpc.port", Integer.toString(Ports.free()));
        c.put("jobmanager.bind-host", "127.0.0.1");
        c.put("taskmanager.bind-host", "127.0.0.1");
        c.put("taskmanager.host", "127.0.0.1");
        c.put("rest.address", "127.0.0.1");
        c.put("rest.bind-address", "127.0.0.1");
        c.put("rest.port", Integer.toString(restPort));
        c.put("blob.server.port", "0");
        c.put("jobmanager.memory.process.size", "768m");
        c.put("taskmanager.memory.process.size", "1024m");
        c.put("taskmanager.memory.managed.fraction", "0.2");
        c.put("taskmanager.numberOfTaskSlots", Integer.toString(slotsPerTaskManager));
        c.put("cluster.evenly-spread-out-slots", "true");
        // A dead TaskManager is noticed within seconds, not the default 50 s heartbeat timeout.
        c.put("heartbeat.interval", "2000");
        c.put("heartbeat.timeout", "10000");
        c.put("execution.checkpointing.dir", home.resolve("checkpoints").toUri().toString());
        c.put(
                "execution.checkpointing.savepoint-dir",
                home.resolve("savepoints").toUri().toString());
        c.put("env.java.opts.all", String.join(" ", FlinkJvmOptions.JAVA_17));
        // REST, blob server, RPC and data exchange with mutual TLS from this run's keystore: every local
        // user reaches 127.0.0.1, only holders of the key (this user's processes) get an answer
        c.putAll(tls.flinkConfiguration());
        c.putAll(config);
        StringBuilder yaml = new StringBuilder("# written by io.flowtrace.testkit.cluster.FlinkCluster\n");
        c.forEach((k, v) -> yaml.append(k).append(": ").append(v).append('\n'));
        Path file = conf.resolve("config.yaml");
        Files.deleteIfExists(file);
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(file, yaml.toString());
        Files.writeString(conf.resolve("log4j.properties"), """
                rootLogger.level = INFO
                rootLogger.appenderRef.console.ref = console
                appender.console.type = Console
                appender.console.name = console
                appender.console.layout.type = PatternLayout
                appender.console.layout.pattern = %d{HH:mm:ss.SSS} %-5p %c{1} - %m%n
                logger.kafka.name = org.apache.kafka
                logger.kafka.level = WARN
                """);
    }
}
