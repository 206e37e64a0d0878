package io.flowtrace.jobs.output;

import io.flowtrace.avro.DeadLetter;
import io.flowtrace.avro.ServiceWindow;
import io.flowtrace.avro.TcpEvent;
import io.flowtrace.avro.VantageWindow;
import io.flowtrace.jobs.config.JobConfig;
import io.flowtrace.jobs.config.JobOption;
import io.flowtrace.jobs.conntrack.BudgetWindow;
import io.flowtrace.jobs.flow.FlowRow;
import io.flowtrace.jobs.join.FlowConntrack;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.connector.jdbc.JdbcConnectionOptions;
import org.apache.flink.connector.jdbc.JdbcExecutionOptions;
import org.apache.flink.connector.jdbc.core.datastream.sink.JdbcSink;

/**
 * JDBC Sink V2 (flink-connector-jdbc) per sink table: batched, at-least-once delivery made
 * effectively exactly-once by the idempotent upserts of {@link PostgresRows}.
 */
public final class PostgresSinks {
    /** The ordered list of migrations (deploy/sql/migrations.list). */
    public static final String MIGRATIONS_RESOURCE = "/sql/migrations.list";
    /** Every migration, applied in order at start (each idempotent). */
    public static final List<String> SCHEMA_RESOURCES = migrations();

    private final JobConfig config;

    public PostgresSinks(JobConfig config) {
        this.config = config;
    }

    Sink<FlowRow> flowRows() {
        return sink(PostgresRows.FLOW_SUMMARY);
    }

    Sink<TcpEvent> tcpEvents() {
        return sink(PostgresRows.TCP_EVENTS);
    }

    Sink<ServiceWindow> serviceWindows() {
        return sink(PostgresRows.SERVICE_WINDOWS);
    }

    Sink<VantageWindow> vantageWindows() {
        return sink(PostgresRows.VANTAGE_WINDOWS);
    }

    Sink<DeadLetter> deadLetters() {
        return sink(PostgresRows.DEAD_LETTERS);
    }

    Sink<BudgetWindow> conntrackBudgets() {
        return sink(PostgresRows.CONNTRACK_BUDGETS);
    }

    Sink<FlowConntrack> flowConntrack() {
        return sink(PostgresRows.FLOW_CONNTRACK);
    }

    /**
     * The connector's sink without its own flush thread (batch interval 0), wrapped so that a
     * database outage backs off and retries instead of failing the TaskManager ({@link OutageTolerantJdbcSink}).
     */
    <T> Sink<T> sink(Upsert<T> upsert) {
        int batchSize = config.getInt(JobOption.JDBC_BATCH_SIZE);
        JdbcSink<T> jdbc = JdbcSink.<T>builder()
                .withQueryStatement(upsert.sql(), OutageTolerantJdbcSink.guarded(upsert))
                .withExecutionOptions(JdbcExecutionOptions.builder()
                        .withBatchSize(batchSize)
                        .withBatchIntervalMs(0)
                        .withMaxRetries(config.getInt(JobOption.JDBC_MAX_RETRIES))
                        .build())
                .buildAtLeastOnce(connection());
        return new OutageTolerantJdbcSink<>(
                upsert,
                jdbc,
                new OutageBackoff(
                        config.getLong(JobOption.JDBC_RETRY_INITIAL_MS),
                        config.getLong(JobOption.JDBC_RETRY_MAX_MS),
                        config.getLong(JobOption.JDBC_OUTAGE_TOLERANCE_MS)),
                config.getLong(JobOption.JDBC_BATCH_INTERVAL_MS),
                batchSize);
    }

    private JdbcConnectionOptions connection() {
        JdbcConnectionOptions.JdbcConnectionOptionsBuilder b = new JdbcConnectionOptions.JdbcConnectionOptionsBuilder()
                .withUrl(withBatchedInserts(config.get(JobOption.JDBC_URL)))
                .withDriverName("org.postgresql.Driver")
                .withUsername(config.get(JobOption.JDBC_USER));
        String password = config.jdbcPassword();
        if (password != null) {
            b.withPassword(password);
        }
        return b.build();
    }

    /**
     * The sink URL with pgjdbc's {@code reWriteBatchedInserts=true}: the driver sends a batch of
     * single-row {@code INSERT ... VALUES (...) ON CONFLICT ...} as multi-row statements (chunks of
     * up to 128 rows), which the writer's one-row-per-key batches ({@link NewestPerKey}) allow. An
     * explicit {@code reWriteBatchedInserts} in the URL is kept as given.
     */
    static String withBatchedInserts(String url) {
        if (url.toLowerCase(Locale.ROOT).contains("rewritebatchedinserts=")) {
            return url;
        }
        return url + (url.indexOf('?') < 0 ? "?" : "&") + "reWriteBatchedInserts=true";
    }

    /** Applies the sink schema (every migration in order, each idempotent DDL) with one plain JDBC connection, before the job starts. */
    public static void applySchema(JobConfig config) {
        String url = config.get(JobOption.JDBC_URL);
        try (Connection c = DriverManager.getConnection(url, config.get(JobOption.JDBC_USER), config.jdbcPassword());
                Statement st = c.createStatement()) {
            for (String resource : SCHEMA_RESOURCES) {
                st.execute(ddl(resource)); // pgjdbc runs a multi-statement script in one call
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot apply the sink schema to " + url, e);
        }
    }

    private static List<String> migrations() {
        return ddl(MIGRATIONS_RESOURCE)
                .lines()
                .map(String::strip)
                .filter(line -> !line.isEmpty() && !line.startsWith("#"))
                .map(file -> "/sql/" + file)
                .toList();
    }

    private static String ddl(String resource) {
        try (InputStream in = PostgresSinks.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is missing from the job jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + resource, e);
        }
    }
}
