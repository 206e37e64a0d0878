package io.flowtrace.jobs.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowtrace.testkit.Postgres;
import io.flowtrace.testkit.RequiredTool;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The roles of deploy/sql/admin/roles.sql on a real PostgreSQL 17: the retention CronJob's role purges
 * through the SECURITY DEFINER function (V6) and can do nothing else; docker/postgres/init-roles.sh sets
 * the passwords without putting them on any command line. Migrations are applied first by the
 * administrator, then by the writer (what the job does at every start).
 */
class PostgresRolesITCase {
    @RegisterExtension
    static final Postgres POSTGRES = new Postgres();

    private static final String WRITER = "flowtrace_writer";
    private static final String READER = "flowtrace_reader";
    private static final String RETENTION = "flowtrace_retention";

    @BeforeAll
    static void rolesAndMigrations() throws Exception {
        List<String> migrations = Files.readAllLines(RepoFiles.path("deploy/sql/migrations.list")).stream()
                .map(String::strip)
                .filter(l -> !l.isEmpty() && !l.startsWith("#"))
                .toList();
        for (String m : migrations) {
            POSTGRES.runSqlFile(RepoFiles.path("deploy/sql/" + m));
        }
        POSTGRES.runSqlFile(RepoFiles.path("deploy/sql/admin/roles.sql"));
        try (Connection writer = connect(WRITER);
                Statement st = writer.createStatement()) {
            for (String m : migrations) {
                st.execute(Files.readString(RepoFiles.path("deploy/sql/" + m)));
            }
        }
    }

    @Test
    void retentionRolePurgesOldRowsThroughTheFunctionAndCanDoNothingElse() throws Exception {
        try (Connection writer = connect(WRITER);
                Statement st = writer.createStatement()) {
            st.execute("DELETE FROM dead_letters");
            st.execute(
                    "INSERT INTO dead_letters (topic, kafka_partition, kafka_offset, kafka_timestamp, stage, reason, raw, job_time) VALUES "
                            + "('t', 0, 1, now(), 'DECODE', 'r', '\\x00', now() - interval '30 days'),"
                            + "('t', 0, 2, now(), 'DECODE', 'r', '\\x00', now() - interval '1 day')");
        }
        try (Connection retention = connect(RETENTION);
                Statement st = retention.createStatement()) {
            Map<String, Long> deleted = new java.util.HashMap<>();
            try (var rs =
                    st.executeQuery("SELECT table_name, deleted FROM flowtrace_purge_older_than(interval '14 days')")) {
                while (rs.next()) {
                    deleted.put(rs.getString(1), rs.getLong(2));
                }
            }
            // One of the two rows is older than 14 days.
            assertThat(deleted).containsEntry("dead_letters", 1L);
            for (String sql : List.of(
                    "SELECT count(*) FROM dead_letters",
                    "DELETE FROM dead_letters",
                    "INSERT INTO dead_letters (topic, kafka_partition, kafka_offset, kafka_timestamp, stage, reason, raw, job_time)"
                            + " VALUES ('t', 0, 3, now(), 'x', 'x', '\\x00', now())",
                    "SELECT * FROM flowtrace_purge(now())",
                    "CREATE TABLE retention_table (i int)")) {
                assertThatThrownBy(() -> st.execute(sql))
                        .as(sql)
                        .isInstanceOfSatisfying(
                                SQLException.class,
                                e -> assertThat(e.getSQLState()).as(sql).isEqualTo("42501"));
            }
        }
        assertThat(POSTGRES.query("SELECT kafka_offset FROM dead_letters"))
                .extracting(r -> r.get("kafka_offset"))
                .containsExactly(2L);
        try (Connection reader = connect(READER);
                Statement st = reader.createStatement()) {
            assertThatThrownBy(() -> st.execute("SELECT * FROM flowtrace_purge_older_than(interval '0')"))
                    .isInstanceOfSatisfying(
                            SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("42501"));
        }
    }

    /** V8's tables carry the sink-table comment, so roles.sql hands them to the writer and the reader only reads them. */
    @Test
    void theOpenVpnTablesBelongToTheWriterAndTheReaderOnlyReadsThem() throws Exception {
        for (String table : List.of("openvpn_sessions", "openvpn_server_windows")) {
            assertThat(POSTGRES.query("SELECT tableowner FROM pg_tables WHERE tablename = ?", table))
                    .extracting(r -> r.get("tableowner"))
                    .as(table)
                    .containsExactly(WRITER);
            try (Connection reader = connect(READER);
                    Statement st = reader.createStatement()) {
                st.executeQuery("SELECT count(*) FROM " + table).close();
                assertThatThrownBy(() -> st.execute("DELETE FROM " + table))
                        .as(table)
                        .isInstanceOfSatisfying(
                                SQLException.class,
                                e -> assertThat(e.getSQLState()).isIn("42501", "25006"));
            }
        }
    }

    @Test
    void purgeFunctionsRunAsTheWriterWithAFixedSearchPath() {
        List<Map<String, Object>> rows = POSTGRES.query(
                "SELECT p.proname, p.prosecdef, array_to_string(p.proconfig, ';') AS config, "
                        + "pg_get_userbyid(p.proowner) AS owner FROM pg_proc p WHERE p.proname LIKE 'flowtrace_purge%' ORDER BY 1");
        assertThat(rows).hasSize(2);
        for (Map<String, Object> row : rows) {
            assertThat(row.get("prosecdef")).as("%s", row).isEqualTo(true);
            assertThat(row.get("config")).as("%s", row).isEqualTo("search_path=public, pg_temp");
            assertThat(row.get("owner")).as("%s", row).isEqualTo(WRITER);
        }
    }

    /**
     * Kubernetes step 1 of docs/operations.md exactly as written (its first fenced block after "1.
     * Database"), run by bash with Debian's psql as the administrator; the lines with {@code \password}
     * need a terminal and are left out (the test logs the roles in with passwords of its own, connectAs). Then the writer applies
     * every migration in database flowtrace, as the job does at its first start: with roles.sql run in
     * another database the writer had no CREATE on flowtrace's schema public and the first migration
     * failed with 42501 "permission denied for schema public".
     */
    @Test
    void theDocumentedDatabaseStepsLetTheJobApplyItsMigrations() throws Exception {
        Path psql = RequiredTool.require("psql", "psql 15 or later, Debian's postgresql-client");
        String doc = Files.readString(RepoFiles.path("docs/operations.md"));
        int step = doc.indexOf("1. Database, once, as an administrator");
        assertThat(step).as("operations.md's database step").isPositive();
        int open = doc.indexOf("```", step);
        int close = doc.indexOf("```", open + 3);
        List<String> lines = doc.substring(doc.indexOf('\n', open) + 1, close)
                .lines()
                .map(String::strip)
                .filter(l -> !l.isEmpty() && !l.startsWith("#") && !l.contains("\\password"))
                .toList();
        assertThat(lines).as("the steps").anyMatch(l -> l.contains("roles.sql"));
        for (String line : lines) {
            ProcessBuilder pb = new ProcessBuilder("bash", "-c", line)
                    .directory(RepoFiles.root().toFile())
                    .redirectErrorStream(true);
            pb.environment().put("PATH", psql.getParent() + ":/usr/bin:/bin");
            pb.environment().put("PGHOST", "127.0.0.1");
            pb.environment().put("PGPORT", String.valueOf(POSTGRES.port()));
            pb.environment().put("PGUSER", Postgres.USER);
            pb.environment().put("PGPASSWORD", POSTGRES.password()); // the environment, not argv
            Process p = pb.start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).as("%s: %s", line, out).isZero();
        }
        try (Connection writer = POSTGRES.connectAs(WRITER, "flowtrace");
                Statement st = writer.createStatement()) {
            for (String m : Files.readAllLines(RepoFiles.path("deploy/sql/migrations.list"))) {
                if (!m.isBlank() && !m.strip().startsWith("#")) {
                    st.execute(Files.readString(RepoFiles.path("deploy/sql/" + m.strip())));
                }
            }
        }
        assertThat(POSTGRES.queryIn("flowtrace", "SELECT tableowner FROM pg_tables WHERE tablename = 'flow_summary'"))
                .extracting(r -> r.get("tableowner"))
                .containsExactly(WRITER);
        try (Connection reader = POSTGRES.connectAs(READER, "flowtrace");
                Statement st = reader.createStatement()) {
            st.executeQuery("SELECT count(*) FROM flow_summary").close();
        }
    }

    /** compose's init script: psql reads the passwords from its environment (\getenv), never from argv. */
    @Test
    void initRolesScriptSetsThePasswordsWithoutPuttingThemOnACommandLine() throws Exception {
        Path psql = RequiredTool.require("psql", "psql 15 or later, Debian's postgresql-client");
        Path dir = Files.createTempDirectory("init-roles");
        Path argv = dir.resolve("argv");
        Path wrapper = dir.resolve("psql");
        Files.writeString(wrapper, "#!/bin/sh\nprintf '%s\\n' \"$@\" >> '" + argv + "'\nexec " + psql + " \"$@\"\n");
        assertThat(wrapper.toFile().setExecutable(true)).isTrue();
        String writerPassword = "w-" + HexFormat.of().formatHex(random(12));
        String readerPassword = "r-" + HexFormat.of().formatHex(random(12));

        ProcessBuilder pb = new ProcessBuilder(
                        "sh", RepoFiles.path("docker/postgres/init-roles.sh").toString())
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("out").toFile());
        Map<String, String> env = pb.environment();
        env.put("PATH", dir + ":" + env.getOrDefault("PATH", "/usr/bin:/bin"));
        env.put("PGHOST", "127.0.0.1");
        env.put("PGPASSWORD", POSTGRES.password()); // the environment, not argv (as the script's own passwords)
        env.put("PGPORT", String.valueOf(POSTGRES.port()));
        env.put("POSTGRES_USER", Postgres.USER);
        env.put("POSTGRES_DB", Postgres.DATABASE);
        env.put("FLOWTRACE_SQL_DIR", RepoFiles.path("deploy/sql").toString());
        env.put("FLOWTRACE_PG_WRITER_PASSWORD", writerPassword);
        env.put("FLOWTRACE_PG_READER_PASSWORD", readerPassword);
        Process p = pb.start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        POSTGRES.forgetRolePassword(WRITER); // init-roles.sh set both passwords
        POSTGRES.forgetRolePassword(READER);
        assertThat(p.exitValue())
                .as("init-roles.sh output: %s", Files.readString(dir.resolve("out")))
                .isZero();

        String commandLines = Files.readString(argv);
        assertThat(commandLines)
                .contains("ON_ERROR_STOP=1")
                .doesNotContain(writerPassword)
                .doesNotContain(readerPassword);
        assertThat(scramVerifies(WRITER, writerPassword))
                .as("the writer's stored SCRAM verifier matches its password")
                .isTrue();
        assertThat(scramVerifies(READER, readerPassword))
                .as("the reader's stored SCRAM verifier matches its password")
                .isTrue();
    }

    /**
     * Checks PostgreSQL's stored verifier "SCRAM-SHA-256$iterations:salt$StoredKey:ServerKey" against a
     * password the way RFC 5802 section 3 defines it: StoredKey = H(HMAC(Hi(password, salt, i), "Client Key")).
     */
    private static boolean scramVerifies(String role, String password) throws Exception {
        String stored = (String) POSTGRES.query("SELECT rolpassword FROM pg_authid WHERE rolname = ?", role)
                .get(0)
                .get("rolpassword");
        assertThat(stored).startsWith("SCRAM-SHA-256$");
        String[] parts = stored.substring("SCRAM-SHA-256$".length()).split("[$:]");
        int iterations = Integer.parseInt(parts[0]);
        byte[] salt = Base64.getDecoder().decode(parts[1]);
        byte[] storedKey = Base64.getDecoder().decode(parts[2]);
        byte[] salted = SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256")
                .generateSecret(new PBEKeySpec(password.toCharArray(), salt, iterations, 256))
                .getEncoded();
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(salted, "HmacSHA256"));
        byte[] clientKey = mac.doFinal("Client Key".getBytes(StandardCharsets.US_ASCII));
        return MessageDigest.isEqual(MessageDigest.getInstance("SHA-256").digest(clientKey), storedKey);
    }

    private static byte[] random(int n) {
        byte[] b = new byte[n];
        new SecureRandom().nextBytes(b);
        return b;
    }

    /** A real login as the role (the embedded server gives it a random password first: it trusts nobody). */
    private static Connection connect(String role) throws SQLException {
        return POSTGRES.connectAs(role, Postgres.DATABASE);
    }
}
