package io.flowtrace.demo;

import io.flowtrace.testkit.FlinkTls;
import io.flowtrace.testkit.KafkaBroker;
import io.flowtrace.testkit.LockedPostgres;
import io.flowtrace.testkit.Secrets;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import javax.sql.DataSource;

/**
 * The real services of the demo, in this JVM: testkit's KRaft Kafka broker (log directories temporary,
 * removed on close; broker and controller on 127.0.0.1) and an embedded PostgreSQL 17 locked down as the
 * test suite's ({@link LockedPostgres}: scram-sha-256 with a random superuser password, 127.0.0.1 only,
 * no Unix socket, the binary cache in the private directory; data directory temporary, removed on close).
 *
 * <p>The demo also creates a non-superuser role {@value #OWNER} with its own random password that owns
 * the database {@value #DATABASE}, and then removes the superuser's password, so nobody (not even this
 * JVM) can log in as superuser for the rest of the run; {@code COPY ... TO PROGRAM} needs one.
 */
final class EmbeddedServices implements AutoCloseable {
    static final String OWNER = "flowtrace";
    static final String DATABASE = "flowtrace";
    private static final String SUPERUSER = LockedPostgres.SUPERUSER;

    private final KafkaBroker kafka = new KafkaBroker();
    private final String ownerPassword = Secrets.randomPassword();
    private EmbeddedPostgres postgres;
    private FlinkTls flinkTls;
    private Path passwordFile;
    private Path pgpass;

    /** @param privateDir this user's checked 0700 directory ({@link RuntimeDir#open}) */
    void start(Path privateDir) throws Exception {
        LockedPostgres.binaryCache(privateDir); // refused here, in one line, before anything starts
        Path dataDir = Files.createTempDirectory(privateDir, "pg-data-");
        String superPassword = Secrets.randomPassword();
        // Both take seconds and are independent: PostgreSQL starts while the broker formats and starts.
        CompletableFuture<EmbeddedPostgres> pg = CompletableFuture.supplyAsync(() -> {
            try {
                return LockedPostgres.start(privateDir, dataDir, superPassword, 0, true);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start the embedded PostgreSQL", e);
            }
        });
        try {
            kafka.start();
            flinkTls = FlinkTls.create(privateDir);
        } finally {
            try {
                postgres = pg.join();
            } catch (CompletionException e) {
                throw e.getCause() instanceof Exception x ? x : e;
            }
        }
        createOwner(postgres.getDatabase(SUPERUSER, "postgres", Map.of("password", superPassword)));
        passwordFile = Secrets.file(privateDir, "pg-password-", ownerPassword);
        pgpass = Secrets.file(
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

    /** The run's keystore for the MiniCluster's mutual TLS (in the private directory, deleted on close). */
    FlinkTls flinkTls() {
        return flinkTls;
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
        return LockedPostgres.jdbcUrl(postgres.getPort(), DATABASE);
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
        if (flinkTls != null) {
            flinkTls.delete();
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
