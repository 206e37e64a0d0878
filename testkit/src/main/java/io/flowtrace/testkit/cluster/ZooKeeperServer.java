package io.flowtrace.testkit.cluster;

import io.flowtrace.testkit.PrivateDirectory;
import io.flowtrace.testkit.Secrets;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A one-node ZooKeeper server as its own process, for Flink's ZooKeeper high availability: what a
 * Flink distribution's {@code bin/start-zookeeper-quorum.sh} starts ({@code bin/zookeeper.sh}: Flink's
 * {@code FlinkZooKeeperQuorumPeer} on lib/, a real ZooKeeper 3.7 server from flink-shaded-zookeeper-3,
 * the same ZooKeeper the JobManager's HA client is built from) with a {@code zoo.cfg} of its own.
 * Listens on 127.0.0.1 only (no quorum or election ports: one node; the admin HTTP server off).
 * {@link #stop()} and {@link #start()} again restart it on the same port and data directory.
 *
 * <p>Every local user reaches 127.0.0.1, so the server takes only sessions that authenticate with SASL
 * DIGEST-MD5 ({@code sessionRequireClientSASLAuth=true}): one user {@value #USER} with a random password
 * per run, in two JAAS files made 0600 in the private 0700 directory ({@link PrivateDirectory}): the
 * server's {@code Server} section ({@code DigestLoginModule} with {@code user_flowtrace}) and the
 * {@code Client} section that Flink's processes load ({@link #clientJaasFile()}, see {@link ZooKeeperHa}).
 * A session without it is closed before any request; Flink also creates its znodes with the
 * {@code creator} ACL (only {@value #USER} may read or write them).
 *
 * <p>The port is picked free and bound by the server a moment later ({@link Ports}): ZooKeeper 3.7 cannot
 * bind port 0 with a {@code clientPortAddress} (QuorumPeerConfig refuses "clientPortAddress is set but
 * clientPort is not set", and without an address it would listen on every interface). A user who takes
 * the port first cannot pass for the server: DIGEST-MD5 has the client check the server's proof of the
 * password ({@code rspauth}), which a squatter lacks.
 */
public final class ZooKeeperServer implements AutoCloseable {
    private final FlinkDistribution flink;
    private final Path home;
    /** The one SASL user of the server; Flink's processes log in as it. */
    public static final String USER = "flowtrace";
    /** The JAAS login module of the ZooKeeper that Flink shades (flink-shaded-zookeeper-3). */
    static final String DIGEST_LOGIN_MODULE =
            "org.apache.flink.shaded.zookeeper3.org.apache.zookeeper.server.auth.DigestLoginModule";

    private final int port;
    private final Path serverJaas;
    private final Path clientJaas;
    private JavaProcess process;
    private int starts;

    public ZooKeeperServer(FlinkDistribution flink, Path home) throws IOException {
        this.flink = flink;
        this.home = home.toAbsolutePath();
        this.port = Ports.free();
        Files.createDirectories(this.home.resolve("data"));
        String password = Secrets.randomPassword();
        Path secrets = PrivateDirectory.open();
        this.serverJaas = Secrets.file(
                secrets,
                "zookeeper-server-",
                String.join(
                        "\n",
                        "Server {",
                        "  " + DIGEST_LOGIN_MODULE + " required",
                        "  user_" + USER + "=\"" + password + "\";",
                        "};"));
        this.clientJaas = Secrets.file(secrets, "zookeeper-client-", clientJaas(USER, password));
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
                        // SASL sessions only (zoo.cfg keys ZooKeeper does not know become zookeeper.* system
                        // properties)
                        "authProvider.sasl=org.apache.flink.shaded.zookeeper3.org.apache.zookeeper.server.auth"
                                + ".SASLAuthenticationProvider",
                        "sessionRequireClientSASLAuth=true",
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

    public int port() {
        return port;
    }

    /** The JAAS file (0600) with the {@code Client} section a process of this user logs in to the server with. */
    public Path clientJaasFile() {
        return clientJaas;
    }

    /** The JVM option that makes a process use {@link #clientJaasFile()} (Flink's default login context is {@code Client}). */
    public String clientJvmOption() {
        return "-Djava.security.auth.login.config=" + clientJaas;
    }

    /** Starts the server (peer id 1, as bin/zookeeper.sh for a one-line quorum); returns when it answers {@code ruok}. */
    public void start() throws IOException, InterruptedException {
        process = JavaProcess.start(
                "zookeeper",
                List.of(
                        "-Xmx128m",
                        "-Djava.security.auth.login.config=" + serverJaas,
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

    /**
     * The command line of ZooKeeper's own CLI ({@code ZooKeeperMain}, what {@code zkCli.sh} runs, from the
     * shaded ZooKeeper in Flink's lib/) running one {@code command} against this server, logging in with
     * the {@code Client} section of {@code jaas} (null: no SASL login).
     */
    public List<String> cliCommand(Path jaas, String... command) {
        List<String> line = new ArrayList<>(List.of(JavaProcess.javaBinary(), "-Xmx64m"));
        if (jaas != null) {
            line.add("-Djava.security.auth.login.config=" + jaas);
        }
        line.addAll(List.of(
                "-cp",
                flink.classpath(),
                "org.apache.flink.shaded.zookeeper3.org.apache.zookeeper.ZooKeeperMain",
                "-server",
                quorum()));
        line.addAll(List.of(command));
        return line;
    }

    /** The JAAS {@code Client} section for {@code user} and {@code password} (a test's guess, or the real one). */
    public static String clientJaas(String user, String password) {
        return String.join(
                "\n",
                "Client {",
                "  " + DIGEST_LOGIN_MODULE + " required",
                "  username=\"" + user + "\"",
                "  password=\"" + password + "\";",
                "};");
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

    /** Stops the server and deletes its JAAS files. */
    @Override
    public void close() throws InterruptedException {
        stop();
        try {
            Files.deleteIfExists(serverJaas);
            Files.deleteIfExists(clientJaas);
        } catch (IOException e) {
            System.err.println("zookeeper: deleting the JAAS files: " + e);
        }
    }
}
