package io.flowtrace.jobs.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.jobs.deploy.GrafanaDashboards.Dashboard;
import io.flowtrace.jobs.deploy.GrafanaDashboards.PanelQuery;
import io.flowtrace.jobs.deploy.GrafanaDashboards.Variable;
import io.flowtrace.jobs.deploy.GrafanaSql.Value;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Grafana as a dashboard's reader: resolves a dashboard's variables and runs its panels' SQL,
 * expanded as Grafana would ({@link GrafanaSql}), on a connection of the read-only role.
 */
final class DashboardReader {
    /** The datasource's minimum interval (deploy/grafana/provisioning/datasources/flowtrace.yaml timeInterval). */
    static final Duration DATASOURCE_MIN_INTERVAL = Duration.ofSeconds(10);

    private DashboardReader() {}

    /**
     * Variables in dashboard order (a later one may use an earlier one): a query variable runs its SQL as
     * the reader and, when multi/All, takes every value (the "All" choice), else the first row, like
     * Grafana's default; a custom variable takes its first option. With {@code allowEmpty}, a
     * single-value query variable without rows gets the empty text (Grafana shows it as "None" and
     * interpolates nothing); otherwise every variable must have a value.
     */
    static Map<String, Value> variables(Connection reader, Dashboard d, Instant from, Instant to, boolean allowEmpty)
            throws SQLException {
        Map<String, Value> resolved = new LinkedHashMap<>();
        for (Variable v : d.variables()) {
            List<String> values = new ArrayList<>();
            if (v.type().equals("query")) {
                String sql = expand(v.query(), resolved, from, to, DATASOURCE_MIN_INTERVAL);
                try (Statement st = reader.createStatement();
                        ResultSet rs = st.executeQuery(sql)) {
                    int valueColumn = findColumn(rs, "__value");
                    while (rs.next()) {
                        values.add(rs.getString(valueColumn));
                    }
                }
            } else {
                assertThat(v.type()).as("variable %s of %s", v.name(), d.uid()).isEqualTo("custom");
                values.addAll(v.customValues());
            }
            if (values.isEmpty() && allowEmpty && !v.multiOrAll()) {
                resolved.put(v.name(), Value.single(""));
                continue;
            }
            assertThat(values)
                    .as("values of variable %s in %s", v.name(), d.uid())
                    .isNotEmpty();
            resolved.put(v.name(), v.multiOrAll() ? Value.all(values) : Value.single(values.get(0)));
        }
        return resolved;
    }

    private static int findColumn(ResultSet rs, String label) throws SQLException {
        for (int c = 1; c <= rs.getMetaData().getColumnCount(); c++) {
            if (rs.getMetaData().getColumnLabel(c).equals(label)) {
                return c;
            }
        }
        return 1;
    }

    /** The panel query's rows over the range; a failing query fails with the expanded SQL. */
    static List<List<Object>> run(
            Connection reader, PanelQuery q, Map<String, Value> variables, Instant from, Instant to) {
        Duration min = q.minInterval() != null ? q.minInterval() : DATASOURCE_MIN_INTERVAL;
        String sql = expand(q.rawSql(), variables, from, to, min);
        assertThat(sql).as("%s fully expanded", q).doesNotContain("$");
        try {
            return query(reader, sql);
        } catch (SQLException e) {
            throw new AssertionError(q + " failed: " + e.getMessage() + "\n" + sql, e);
        }
    }

    static String expand(String raw, Map<String, Value> variables, Instant from, Instant to, Duration minInterval) {
        return GrafanaSql.expandMacros(
                GrafanaSql.interpolate(raw, variables, GrafanaSql.interval(from, to, minInterval)), from, to);
    }

    static List<List<Object>> query(Connection c, String sql) throws SQLException {
        List<List<Object>> rows = new ArrayList<>();
        try (Statement st = c.createStatement();
                ResultSet rs = st.executeQuery(sql)) {
            int columns = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                List<Object> row = new ArrayList<>();
                for (int i = 1; i <= columns; i++) {
                    row.add(rs.getObject(i));
                }
                rows.add(row);
            }
        }
        return rows;
    }
}
