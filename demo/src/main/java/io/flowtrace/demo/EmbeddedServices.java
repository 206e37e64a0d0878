package io.flowtrace.demo;

import io.flowtrace.testkit.KafkaBroker;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import javax.sql.DataSource;

/**
 * The real services of the demo, in this JVM: testkit's KRaft Kafka broker (log directories temporary,
 * removed on close; broker and controller on 127.0.0.1) and an embedded PostgreSQL 17 (zonky; data
 * directory temporary, removed on close).
 *
 * <p>PostgreSQL is locked down, because every local user can reach 127.0.0.1: zonky's initdb asks for
 * {@code -A trust -U postgres}; the options zonky appends after its own override them:
 * {@code --auth=scram-sha-256} and {@code --pwfile} with a random superuser password (a 0600 file in the
 * private directory, deleted once initdb has read it). Only TCP on 127.0.0.1 (no Unix socket: it would
 * sit in /tmp). The demo creates a non-superuser role {@value #OWNER} with its own random password that
 * owns the database {@value #DATABASE}, and then removes the superuser's password, so nobody (not even
 * this JVM) can log in as superuser for the rest of the run; {@code COPY ... TO PROGRAM} needs one. As
 * root, zonky runs PostgreSQL under {@code unshare -U}, which keeps host uid 0: this is why it matters.
 *
 * <p>The binary cache (zonky unpacks PostgreSQL once and reuses it) is {@code pg-binaries} in the
 * private directory ({@link RuntimeDir}): zonky makes that folder world-writable
 * ({@code setWritable(true, false)} in its prepareBinaries), harmless inside a 0700 parent, and it is
 * set back to 0700 after every start.
 */
final class EmbeddedServices implements AutoCloseable {
    static final String OWNER = "flowtrace";
    static final String DATABASE = "flowtrace";
    private static final String SUPERUSER = "postgres";

    private final KafkaBroker kafka = new KafkaBroker();
    private final String ownerPassword = randomPassword();
    private EmbeddedPostgres postgres;
    private Path passwordFile;
    private Path pgpass;

    /** @param privateDir this user's checked 0700 directory ({@link RuntimeDir#open}) */
    void start(Path privateDir) throws Exception {
        Path binaries = privateDir.resolve("pg-binaries");
        if (Files.exists(binaries, LinkOption.NOFOLLOW_LINKS)) {
            Files.setPosixFilePermissions(binaries, PosixFilePermissions.fromString("rwx------"));
            RuntimeDir.check(binaries, "the PostgreSQL binary cache");
        }
        // zonky's data-directory parent (default <tmp>/embedded-pg, shared) and the data directory itself
        System.setProperty("ot.epg.working-dir", privateDir.resolve("pg-work").toString());
        Path dataDir = Files.createTempDirectory(privateDir, "pg-data-");
        String superPassword = randomPassword();
        Path pwfile = secretFile(privateDir, "pg-superuser-", superPassword);
        // Both take seconds and are independent: PostgreSQL starts while the broker formats and starts.
        CompletableFuture<EmbeddedPostgres> pg = CompletableFuture.supplyAsync(() -> {
            try {
                return EmbeddedPostgres.builder()
                        .setOverrideWorkingDirectory(binaries.toFile())
                        .setDataDirectory(dataDir)
                        .setCleanDataDirectory(true)
                        .setLocaleConfig("auth", "scram-sha-256")
                        .setLocaleConfig("pwfile", pwfile.toString())
                        .setServerConfig("listen_addresses", "127.0.0.1")
                        .setServerConfig("unix_socket_directories", "")
                        .setConnectConfig("password", superPassword)
                        .start();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException("cannot start the embedded PostgreSQL", e);
            }
        });
        try {
            kafka.start();
        } finally {
            try {
                postgres = pg.join();
            } catch (CompletionException e) {
                throw e.getCause() instanceof Exception x ? x : e;
            } finally {
                Files.deleteIfExists(pwfile);
                if (Files.isDirectory(binaries, LinkOption.NOFOLLOW_LINKS)) {
                    Files.setPosixFilePermissions(binaries, PosixFilePermissions.fromString("rwx------"));
                }
            }
        }
        createOwner(postgres.getDatabase(SUPERUSER, "postgres", Map.of("password", superPassword)));
        passwordFile = secretFile(privateDir, "pg-password-", ownerPassword);
        pgpass = secretFile(
                privateDir,
                "pgpass-",
                "127.0.0.1:" + postgres.getPort() + ":" + DATABASE + ":" + OWNER + ":" + ownerPassword);
    }

    /** The demo's role and database; then the superuser loses its password (no login as superuser any more). */
    private void createOwner(DataSource superuser) throws SQLException {
        try (Connection c = superuser.getConnection();
                Statement s = c.createStatement()) {
            // the passwords are hex digits (randomPassword): nothing to quote
            s.execute("CREATE ROLE " + OWNER + " LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD '" + ownerPassword
                    + "'");
            s.execute("CREATE DATABASE " + DATABASE + " OWNER " + OWNER);
            s.execute("ALTER ROLE " + SUPERUSER + " PASSWORD NULL");
        }
    }

    private static String randomPassword() {
        byte[] b = new byte[24];
        new SecureRandom().nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    /** A new 0600 file in the private directory holding one line (created, never opened through a link). */
    private static Path secretFile(Path dir, String prefix, String line) throws IOException {
        Path f = Files.createTempFile(
                dir, prefix, "", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(
                f,
                line + "\n",
                StandardCharsets.UTF_8,
                StandardOpenOption.TRUNCATE_EXISTING,
                LinkOption.NOFOLLOW_LINKS);
        return f;
    }

    KafkaBroker kafka() {
        return kafka;
    }

    String bootstrapServers() {
        return kafka.bootstrapServers();
    }

    int postgresPort() {
        return postgres.getPort();
    }

    String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/" + DATABASE;
    }

    /** The file holding the demo role's password (the job's {@code --jdbc-password-file}). */
    Path passwordFile() {
        return passwordFile;
    }

    /** For {@code psql}: the URL and the pgpass file (0600, in the private directory) that holds the password. */
    String psqlCommand() {
        return "PGPASSFILE=" + pgpass + " psql postgresql://" + OWNER + "@127.0.0.1:" + postgres.getPort() + "/"
                + DATABASE;
    }

    String psqlUrl() {
        return "postgresql://" + OWNER + "@127.0.0.1:" + postgres.getPort() + "/" + DATABASE;
    }

    DataSource dataSource() {
        return postgres.getDatabase(OWNER, DATABASE, Map.of("password", ownerPassword));
    }

    @Override
    public void close() throws Exception {
        Exception first = null;
        try {
            kafka.close();
        } catch (Exception e) {
            first = e;
        }
        if (postgres != null) {
            try {
                postgres.close();
            } catch (IOException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
            postgres = null;
        }
        for (Path secret : new Path[] {passwordFile, pgpass}) {
            if (secret != null) {
                Files.deleteIfExists(secret);
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
