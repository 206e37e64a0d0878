package io.flowtrace.testkit.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A one-node ZooKeeper server as its own process, for Flink's ZooKeeper high availability: what a
 * Flink distribution's {@code bin/start-zookeeper-quorum.sh} starts ({@code bin/zookeeper.sh}: Flink's
 * {@code FlinkZooKeeperQuorumPeer} on lib/, a real ZooKeeper 3.7 server from flink-shaded-zookeeper-3,
 * the same ZooKeeper the JobManager's HA client is built from) with a {@code zoo.cfg} of its own.
 * Listens on 127.0.0.1 only (no quorum or election ports: one node; the admin HTTP server off).
 * {@link #stop()} and {@link #start()} again restart it on the same port and data directory.
 */
public final class ZooKeeperServer implements AutoCloseable {
    private final FlinkDistribution flink;
    private final Path home;
    private final int port;
    private JavaProcess process;
    private int starts;

    public ZooKeeperServer(FlinkDistribution flink, Path home) throws IOException {
        this.flink = flink;
        this.home = home.toAbsolutePath();
        this.port = Ports.free();
        Files.createDirectories(this.home.resolve("data"));
        // zoo.cfg as a distribution's conf/zoo.cfg, bound to loopback (clientPortAddress).
        Files.writeString(
                this.home.resolve("zoo.cfg"),
                String.join(
                        "\n",
                        "tickTime=2000",
                        "initLimit=10",
                        "syncLimit=5",
                        "dataDir=" + this.home.resolve("data"),
                        "clientPort=" + port,
                        "clientPortAddress=127.0.0.1",
                        "admin.enableServer=false",
                        "maxClientCnxns=0",
                        "4lw.commands.whitelist=ruok",
                        ""));
        Files.writeString(this.home.resolve("log4j.properties"), """
                rootLogger.level = INFO
                rootLogger.appenderRef.console.ref = console
                appender.console.type = Console
                appender.console.name = console
                appender.console.layout.type = PatternLayout
                appender.console.layout.pattern = %d{HH:mm:ss.SSS} %-5p %c{1} - %m%n
                """);
    }

    /** {@code host:port} for {@code high-availability.zookeeper.quorum}. */
    public String quorum() {
        return "127.0.0.1:" + port;
    }

    /** Starts the server (peer id 1, as bin/zookeeper.sh for a one-line quorum); returns when it answers {@code ruok}. */
    public void start() throws IOException, InterruptedException {
        process = JavaProcess.start(
                "zookeeper",
                List.of(
                        "-Xmx128m",
                        "-Dlog4j.configurationFile="
                                + home.resolve("log4j.properties").toUri()),
                flink.classpath(),
                "org.apache.flink.runtime.zookeeper.FlinkZooKeeperQuorumPeer",
                List.of("--zkConfigFile", home.resolve("zoo.cfg").toString(), "--peerId", "1"),
                Map.of(),
                home.resolve("zookeeper-" + (++starts) + ".log"));
        FlinkCluster.await("ZooKeeper at " + quorum(), Duration.ofMinutes(5), () -> {
            if (!process.isAlive()) {
                throw new IllegalStateException("ZooKeeper exited; see " + process.log());
            }
            return "imok".equals(fourLetterWord("ruok"));
        });
    }

    /** A ZooKeeper four-letter command over the client port (only {@code ruok} is allowed). */
    private String fourLetterWord(String command) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 2000);
            s.setSoTimeout(2000);
            OutputStream out = s.getOutputStream();
            out.write(command.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        }
    }

    public JavaProcess process() {
        return process;
    }

    /** SIGTERM, then {@code kill -9} after 30 s. */
    public void stop() throws InterruptedException {
        if (process != null) {
            process.stop(Duration.ofSeconds(30));
        }
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }
}
