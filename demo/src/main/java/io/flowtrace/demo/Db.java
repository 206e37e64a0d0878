package io.flowtrace.demo;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/** Read-only queries against the sink tables: each row a column-label → value map in column order. */
public final class Db {
    private final DataSource source;

    public Db(DataSource source) {
        this.source = source;
    }

    public List<Map<String, Object>> query(String sql, Object... parameters) {
        try (Connection c = source.getConnection();
                PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                s.setObject(i + 1, parameters[i]);
            }
            try (ResultSet rows = s.executeQuery()) {
                ResultSetMetaData meta = rows.getMetaData();
                List<Map<String, Object>> out = new ArrayList<>();
                while (rows.next()) {
                    Map<String, Object> row = new LinkedHashMap<>();
                    for (int i = 1; i <= meta.getColumnCount(); i++) {
                        row.put(meta.getColumnLabel(i), rows.getObject(i));
                    }
                    out.add(row);
                }
                return out;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("query failed: " + sql, e);
        }
    }

    public long count(String sql, Object... parameters) {
        Object v = query(sql, parameters).get(0).values().iterator().next();
        return v == null ? 0 : ((Number) v).longValue();
    }

    public static long l(Map<String, Object> row, String column) {
        Object v = row.get(column);
        return v == null ? 0 : ((Number) v).longValue();
    }

    public static Double d(Map<String, Object> row, String column) {
        Object v = row.get(column);
        return v == null ? null : ((Number) v).doubleValue();
    }

    public static String s(Map<String, Object> row, String column) {
        Object v = row.get(column);
        return v == null ? "" : v.toString();
    }
}
