package io.flowtrace.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What another local user can do to a demo started by root (as the README's quick start runs it on a
 * shared machine): each test runs the attacker's side as uid/gid 65534 with {@code setpriv}, a real
 * second user, not a simulation in this JVM. Needs root (CI runs as root) and util-linux setpriv.
 */
class LocalUsersITCase {
    private static final String NOBODY = "65534";

    /** World-readable: the attacker's JVM reads the probe and the JDBC driver from here. */
    private Path shared;

    @BeforeAll
    static void needsRootAndSetpriv() {
        assumeTrue(RuntimeDir.currentUid() == 0, "runs the second user with setpriv, which needs root");
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "util-linux setpriv is not installed");
    }

    @BeforeEach
    void sharedDirectory() throws Exception {
        shared = Files.createTempDirectory("flowtrace-local-users-");
        assertThat(run(new ProcessBuilder("chmod", "1777", shared.toString())).status())
                .isZero(); // sticky, as /tmp
    }

    @AfterEach
    void removeShared() throws IOException {
        Demo.deleteTree(shared);
    }

    @Test
    void anotherUserCannotLogInAsSuperuserNorAsTheDemoRoleAndTheDemoRoleIsNoSuperuser(@TempDir Path tmp)
            throws Exception {
        Path probe = writeProbe();
        Path driver = shared.resolve("postgresql.jar");
        try (EmbeddedServices services = new EmbeddedServices()) {
            services.start(RuntimeDir.open(tmp.resolve("private")));
            int port = services.postgresPort();
            // no Unix socket anywhere (/proc/net/unix lists every bound one): TCP on 127.0.0.1 with a password only
            assertThat(Files.readAllLines(Path.of("/proc/net/unix"))).noneMatch(l -> l.endsWith(".s.PGSQL." + port));
            // the superuser and the demo's role, without a password and with the classic guesses
            for (String[] login : new String[][] {
                {"postgres", "postgres", ""},
                {"postgres", "postgres", "postgres"},
                {"postgres", "template1", ""},
                {"flowtrace", "flowtrace", ""},
                {"flowtrace", "flowtrace", "flowtrace"}
            }) {
                String out = asNobody(List.of(
                        java(),
                        "-XX:-UsePerfData",
                        "-cp",
                        driver.toString(),
                        probe.toString(),
                        "jdbc:postgresql://127.0.0.1:" + port + "/" + login[1],
                        login[0],
                        login[2]));
                assertThat(out)
                        .as("login %s/%s", login[0], login[1])
                        .contains("refused")
                        .doesNotContain("connected as");
            }
            // the demo itself logs in with its role's password; that role is no superuser and cannot run programs
            try (Connection c = services.dataSource().getConnection();
                    Statement s = c.createStatement()) {
                try (ResultSet r =
                        s.executeQuery("SELECT current_user, rolsuper FROM pg_roles WHERE rolname = current_user")) {
                    r.next();
                    assertThat(r.getString(1)).isEqualTo("flowtrace");
                    assertThat(r.getBoolean(2)).isFalse();
                }
                assertThatThrownBy(() -> s.execute("COPY (SELECT 1) TO PROGRAM 'true'"))
                        .isInstanceOf(SQLException.class)
                        .satisfies(e -> assertThat(((SQLException) e).getSQLState())
                                .isEqualTo("42501")); // insufficient_privilege
            }
        }
    }

    /**
     * The test suite's PostgreSQL (testkit {@code Postgres}: every ITCase and {@code cluster up}) is locked
     * down like the demo's, by the same code: before, it trusted every TCP login as superuser and had a
     * 0777 Unix socket in /tmp and a 0777 binary cache {@code <tmp>/embedded-pg} reused whoever filled it.
     */
    @Test
    void anotherUserCannotLogInToTheTestSuitesPostgresNorPlantABinaryInItsCache(@TempDir Path tmp) throws Exception {
        Path probe = writeProbe();
        Path driver = shared.resolve("postgresql.jar");
        Path privateDir = tmp.resolve("private");
        // a cache another user made first is refused, in one line, before anything starts
        Files.createDirectories(privateDir.resolve("pg-binaries"));
        Files.setPosixFilePermissions(privateDir, PosixFilePermissions.fromString("rwx------"));
        chown(privateDir.resolve("pg-binaries"));
        System.setProperty(io.flowtrace.testkit.PrivateDirectory.PROPERTY, privateDir.toString());
        try {
            io.flowtrace.testkit.Postgres planted = new io.flowtrace.testkit.Postgres();
            try {
                assertThatThrownBy(planted::start)
                        .isInstanceOf(io.flowtrace.testkit.PrivateDirectory.UnsafeDirectoryException.class)
                        .hasMessageContaining("the PostgreSQL binary cache")
                        .hasMessageContaining("belongs to uid 65534");
            } finally {
                planted.close();
            }
            Files.delete(privateDir.resolve("pg-binaries"));
            io.flowtrace.testkit.Postgres pg = new io.flowtrace.testkit.Postgres();
            try {
                pg.start();
                int port = pg.port();
                assertThat(Files.readAllLines(Path.of("/proc/net/unix")))
                        .noneMatch(l -> l.endsWith(".s.PGSQL." + port));
                for (String[] login : new String[][] {
                    {"postgres", "postgres", ""}, {"postgres", "postgres", "postgres"}, {"postgres", "template1", ""}
                }) {
                    String out = asNobody(List.of(
                            java(),
                            "-XX:-UsePerfData",
                            "-cp",
                            driver.toString(),
                            probe.toString(),
                            "jdbc:postgresql://127.0.0.1:" + port + "/" + login[1],
                            login[0],
                            login[2]));
                    assertThat(out)
                            .as("login %s/%s", login[0], login[1])
                            .contains("refused")
                            .doesNotContain("connected as");
                }
                // the suite itself logs in with the random password, as superuser
                assertThat(pg.query("SELECT rolsuper FROM pg_roles WHERE rolname = current_user"))
                        .containsExactly(java.util.Map.of("rolsuper", true));
            } finally {
                pg.close();
            }
            Path cache = privateDir.resolve("pg-binaries");
            assertThat(Files.getPosixFilePermissions(cache, LinkOption.NOFOLLOW_LINKS))
                    .isEqualTo(PosixFilePermissions.fromString("rwx------"));
            Path initdb;
            try (Stream<Path> s = Files.list(cache)) {
                initdb = s.filter(p -> p.getFileName().toString().startsWith("PG-"))
                        .findFirst()
                        .orElseThrow()
                        .resolve("bin/initdb");
            }
            String digest = sha256(initdb);
            Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwx--x--x"));
            String out = asNobody(List.of(
                    "sh",
                    "-c",
                    "cp /bin/true '" + initdb + "'; echo cp=$?; mkdir '" + cache + "/PG-planted'; echo mkdir=$?"));
            assertThat(out).contains("cp=1", "mkdir=1").contains("Permission denied");
            assertThat(sha256(initdb)).isEqualTo(digest);
        } finally {
            System.clearProperty(io.flowtrace.testkit.PrivateDirectory.PROPERTY);
        }
    }

    @Test
    void anotherUserCannotPlantOrReplaceAPostgresBinary(@TempDir Path tmp) throws Exception {
        Path privateDir = RuntimeDir.open(tmp.resolve("private"));
        try (EmbeddedServices services = new EmbeddedServices()) {
            services.start(privateDir);
        }
        Path cache = privateDir.resolve("pg-binaries");
        Path initdb;
        try (Stream<Path> s = Files.list(cache)) {
            initdb = s.filter(p -> p.getFileName().toString().startsWith("PG-"))
                    .findFirst()
                    .orElseThrow()
                    .resolve("bin/initdb");
        }
        String digest = sha256(initdb);
        // tmp itself is 0700 (JUnit), so the test opens the path down to the private directory as an attacker would
        // find it
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwx--x--x"));
        assertThat(Files.getPosixFilePermissions(privateDir, LinkOption.NOFOLLOW_LINKS))
                .isEqualTo(PosixFilePermissions.fromString("rwx------"));
        assertThat(Files.getPosixFilePermissions(cache, LinkOption.NOFOLLOW_LINKS))
                .isEqualTo(PosixFilePermissions.fromString("rwx------"));
        String out = asNobody(List.of(
                "sh",
                "-c",
                "cp /bin/true '" + initdb + "'; echo cp=$?; mkdir '" + cache + "/PG-planted'; echo mkdir=$?;"
                        + " touch '" + privateDir + "/demo.lock'; echo touch=$?"));
        assertThat(out).contains("cp=1", "mkdir=1", "touch=1").contains("Permission denied");
        assertThat(sha256(initdb)).isEqualTo(digest);
        assertThat(cache.resolve("PG-planted")).doesNotExist();
    }

    @Test
    void refusesAPrivateDirectoryOrBinaryCacheThatIsALinkOrAnotherUsersOrOpenToOthers(@TempDir Path tmp)
            throws Exception {
        Path open = Files.createDirectory(tmp.resolve("open"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertThatThrownBy(() -> RuntimeDir.open(open))
                .isInstanceOf(io.flowtrace.testkit.PrivateDirectory.UnsafeDirectoryException.class)
                .hasMessageContaining("has mode rwxrwxrwx");
        Path theirs = Files.createDirectory(tmp.resolve("theirs"));
        chown(theirs);
        assertThatThrownBy(() -> RuntimeDir.open(theirs)).hasMessageContaining("belongs to uid 65534");
        Path link = Files.createSymbolicLink(tmp.resolve("link"), Files.createDirectory(tmp.resolve("target")));
        assertThatThrownBy(() -> RuntimeDir.open(link)).hasMessageContaining("is a symbolic link");

        Path privateDir = RuntimeDir.open(tmp.resolve("private"));
        Path cache = Files.createDirectory(privateDir.resolve("pg-binaries"));
        chown(cache);
        try (EmbeddedServices services = new EmbeddedServices()) {
            assertThatThrownBy(() -> services.start(privateDir))
                    .isInstanceOf(io.flowtrace.testkit.PrivateDirectory.UnsafeDirectoryException.class)
                    .hasMessageContaining("the PostgreSQL binary cache")
                    .hasMessageContaining("belongs to uid 65534");
        }
    }

    /**
     * The real entry point in a JVM of its own, its temporary directory a sticky world-writable one
     * like /tmp, where the other user has planted links at the names the demo used to open (the lock,
     * the log, the launcher's build log) and at the new private directory's name.
     */
    @Test
    void plantedLinksNeitherRedirectTheLockNorTheLogAndAPlantedPrivateDirectoryIsRefused() throws Exception {
        Path victims = Files.createTempDirectory("flowtrace-victims-");
        try {
            List<Path> targets = new ArrayList<>();
            for (String name :
                    List.of("flowtrace-demo-root.lock", "flowtrace-demo-root.log", "flowtrace-build-root.log")) {
                Path target = Files.writeString(victims.resolve(name + ".target"), "precious\n");
                targets.add(target);
                asNobody(List.of(
                        "ln", "-s", target.toString(), shared.resolve(name).toString()));
            }
            Path attackerDir = shared.resolve("attacker");
            asNobody(List.of("mkdir", "-m", "777", attackerDir.toString()));
            Path privateName = shared.resolve("flowtrace-0");
            asNobody(List.of("ln", "-s", attackerDir.toString(), privateName.toString()));

            Result linked = demoMain(List.of("--pcap", "/nonexistent.pcap"));
            assertThat(linked.status()).isEqualTo(1);
            assertThat(linked.err().strip().lines())
                    .hasSize(1)
                    .first()
                    .asString()
                    .contains("flowtrace demo: the demo's private directory " + privateName + " is a symbolic link");
            assertThat(attackerDir).isEmptyDirectory();

            asNobody(List.of("sh", "-c", "rm '" + privateName + "' && mkdir -m 700 '" + privateName + "'"));
            Result theirs = demoMain(List.of("--pcap", "/nonexistent.pcap"));
            assertThat(theirs.status()).isEqualTo(1);
            assertThat(theirs.err()).contains("belongs to uid 65534");
            asNobody(List.of("rmdir", privateName.toString()));

            // root without --allow-root: refused in one line, before any service starts
            Result asRoot = demoMain(List.of("--pcap", "/nonexistent.pcap"));
            assertThat(asRoot.status()).isEqualTo(1);
            assertThat(asRoot.err().strip().lines())
                    .hasSize(1)
                    .first()
                    .asString()
                    .startsWith("flowtrace demo: refusing to run as root")
                    .contains("--allow-root");

            Result fresh = demoMain(List.of("--allow-root", "--pcap", "/nonexistent.pcap"));
            assertThat(fresh.status()).as(fresh.err()).isNotZero();
            assertThat(fresh.err()).contains("--pcap /nonexistent.pcap: no such file");
            // says once what running as root means
            assertThat(fresh.err().split("running as root", -1)).hasSize(2);
            assertThat(Files.getPosixFilePermissions(privateName, LinkOption.NOFOLLOW_LINKS))
                    .isEqualTo(PosixFilePermissions.fromString("rwx------"));
            assertThat(privateName.resolve("demo.lock")).isRegularFile();
            assertThat(Files.readString(privateName.resolve("demo.log")))
                    .contains("flowtrace demo --allow-root --pcap /nonexistent.pcap");
            for (Path target : targets) {
                assertThat(target).hasContent("precious");
            }
            // and the launcher's own check of the same directory
            Path script =
                    Files.copy(Bundled.home().resolve("scripts/runtime-dir.sh"), shared.resolve("runtime-dir.sh"));
            Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rw-r--r--"));
            asNobody(List.of("sh", "-c", "mkdir -m 777 '" + shared + "/flowtrace-65534'"));
            ProcessBuilder launcher = new ProcessBuilder(List.of(
                    "setpriv",
                    "--reuid",
                    NOBODY,
                    "--regid",
                    NOBODY,
                    "--clear-groups",
                    "bash",
                    "-c",
                    ". '" + script + "' && flowtrace_runtime_dir"));
            launcher.environment().put("TMPDIR", shared.toString());
            Result open = run(launcher);
            assertThat(open.status()).isEqualTo(1);
            assertThat(open.err()).contains("has mode 777, not 700");
        } finally {
            Demo.deleteTree(victims);
        }
    }

    /** The login probe and the JDBC driver, world-readable in the shared directory; returns the probe. */
    private Path writeProbe() throws Exception {
        Path probe = shared.resolve("PgLogin.java");
        Files.writeString(probe, PG_LOGIN, StandardCharsets.UTF_8);
        Path driver = shared.resolve("postgresql.jar");
        Files.copy(
                Path.of(org.postgresql.Driver.class
                        .getProtectionDomain()
                        .getCodeSource()
                        .getLocation()
                        .toURI()),
                driver);
        for (Path p : List.of(probe, driver)) {
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-r--r--"));
        }
        return probe;
    }

    private record Result(int status, String out, String err) {}

    private Result demoMain(List<String> args) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                java(),
                "-Djava.io.tmpdir=" + shared,
                "-Dflowtrace.home=" + Bundled.home(),
                "-cp",
                System.getProperty("java.class.path"),
                DemoMain.class.getName()));
        command.addAll(args);
        return run(new ProcessBuilder(command));
    }

    private static Result run(ProcessBuilder pb) throws Exception {
        Path out = Files.createTempFile("flowtrace-out-", ".txt");
        Path err = Files.createTempFile("flowtrace-err-", ".txt");
        try {
            Process p =
                    pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("finished").isTrue();
            return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /** Runs a command as uid and gid 65534 without supplementary groups; returns stdout and stderr. */
    private static String asNobody(List<String> command) throws Exception {
        List<String> full =
                new ArrayList<>(List.of("setpriv", "--reuid", NOBODY, "--regid", NOBODY, "--clear-groups", "--"));
        full.addAll(command);
        Result r = run(new ProcessBuilder(full));
        return r.out() + r.err();
    }

    private static void chown(Path p) throws IOException {
        Files.setAttribute(p, "unix:uid", 65534, LinkOption.NOFOLLOW_LINKS);
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static String sha256(Path p) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(p)));
    }

    /** The attacker's client: one JDBC login; prints "connected as ..." or "refused SQLSTATE message". */
    private static final String PG_LOGIN = """
            import java.sql.*;
            public class PgLogin {
                public static void main(String[] a) {
                    try (Connection c = DriverManager.getConnection(a[0], a[1], a[2]);
                         ResultSet r = c.createStatement().executeQuery("SELECT current_user")) {
                        r.next();
                        System.out.println("connected as " + r.getString(1));
                    } catch (SQLException e) {
                        System.out.println("refused " + e.getSQLState() + " " + e.getMessage());
                    }
                }
            }
            """;
}
