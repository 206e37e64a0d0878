package io.flowtrace.demo;

import io.flowtrace.testkit.KafkaBroker;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Path;
import javax.sql.DataSource;

/**
 * The real services of the demo, in this JVM: testkit's KRaft Kafka broker (its log directories are
 * temporary and removed on close) and an embedded PostgreSQL 17 (zonky; data directory temporary and
 * removed on close). Both listen on free ephemeral ports of localhost.
 */
final class EmbeddedServices implements AutoCloseable {
    static final String PG_USER = "postgres";
    static final String PG_DATABASE = "postgres";

    private final KafkaBroker kafka = new KafkaBroker();
    private EmbeddedPostgres postgres;

    /**
     * @param pgBinaries where zonky unpacks the PostgreSQL binaries (a per-user cache: a directory
     *     another user created cannot be reused)
     */
    void start(Path pgBinaries) throws Exception {
        // Both take seconds and are independent: PostgreSQL starts while the broker formats and starts.
        java.util.concurrent.CompletableFuture<EmbeddedPostgres> pg = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return EmbeddedPostgres.builder()
                        .setOverrideWorkingDirectory(pgBinaries.toFile())
                        .setCleanDataDirectory(true)
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
            } catch (java.util.concurrent.CompletionException e) {
                throw e.getCause() instanceof Exception x ? x : e;
            }
        }
    }

    KafkaBroker kafka() {
        return kafka;
    }

    String bootstrapServers() {
        return kafka.bootstrapServers();
    }

    String jdbcUrl() {
        return postgres.getJdbcUrl(PG_USER, PG_DATABASE);
    }

    /** For {@code psql}: trust authentication, no password. */
    String psqlUrl() {
        return "postgresql://" + PG_USER + "@localhost:" + postgres.getPort() + "/" + PG_DATABASE;
    }

    DataSource dataSource() {
        return postgres.getPostgresDatabase();
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
        if (first != null) {
            throw first;
        }
    }
}
