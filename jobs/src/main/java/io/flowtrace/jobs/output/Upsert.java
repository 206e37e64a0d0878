package io.flowtrace.jobs.output;

import java.io.Serializable;
import java.nio.ByteBuffer;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.flink.connector.jdbc.JdbcStatementBuilder;

/**
 * One sink table's idempotent upsert, declared as its column list: each column with its name, its
 * PostgreSQL type and how a record fills it. The SQL text (column list, placeholders, the
 * {@code EXCLUDED} update list) and the parameter binding both come from that one list, so they
 * cannot disagree. Serializable, as the JDBC connector ships it to the task managers.
 */
public final class Upsert<T> implements JdbcStatementBuilder<T> {
    private static final long serialVersionUID = 1L;

    /** Fills the parameter at {@code index} from a record. */
    @FunctionalInterface
    public interface Binder<T> extends Serializable {
        void bind(PreparedStatement st, int index, T record) throws SQLException;
    }

    /** A value of a record; null means SQL NULL. */
    @FunctionalInterface
    public interface Get<T, V> extends Serializable {
        V of(T record);
    }

    /** @param type the PostgreSQL type name (information_schema's data_type) */
    public record Column<T>(String name, String type, boolean nullable, Binder<T> binder) implements Serializable {}

    /** What a row does to a stored row of its key; also decides which of two rows of one key in a batch stays. */
    enum OnConflict {
        /** DO UPDATE: the later row wins. */
        UPDATE,
        /** DO UPDATE ... WHERE stored.version <= EXCLUDED.version: the later of the newest rows wins. */
        UPDATE_IF_NOT_OLDER,
        /** DO NOTHING: the first row stays. */
        KEEP_FIRST
    }

    /** {@code TABLE.COLUMN <= EXCLUDED.COLUMN}: the only condition whose batch dedupe is known. */
    private static final Pattern NOT_OLDER = Pattern.compile("(\\w+)\\.(\\w+) <= EXCLUDED\\.(\\w+)");

    private final String table;
    private final List<String> key;
    private final List<Column<T>> columns;
    /** The ON CONFLICT action after the conflict target. */
    private final String onConflict;

    private final OnConflict conflict;
    /** Positions in {@link #columns} of the key columns, in key order. */
    private final int[] keyColumns;
    /** Position of the version column of {@link OnConflict#UPDATE_IF_NOT_OLDER}; -1 otherwise. */
    private final int versionColumn;

    private Upsert(
            String table,
            List<String> key,
            List<Column<T>> columns,
            String onConflict,
            OnConflict conflict,
            String versionColumn) {
        this.table = table;
        this.key = List.copyOf(key);
        this.columns = List.copyOf(columns);
        this.onConflict = onConflict;
        this.conflict = conflict;
        this.keyColumns = key.stream().mapToInt(this::position).toArray();
        this.versionColumn = versionColumn == null ? -1 : position(versionColumn);
    }

    private int position(String column) {
        for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i).name().equals(column)) {
                return i;
            }
        }
        throw new IllegalArgumentException(table + " has no column " + column);
    }

    OnConflict conflict() {
        return conflict;
    }

    int[] keyColumns() {
        return keyColumns.clone();
    }

    /** The version column's position ({@link OnConflict#UPDATE_IF_NOT_OLDER}), else -1. */
    int versionColumn() {
        return versionColumn;
    }

    public static <T> Builder<T> into(String table, String... key) {
        return new Builder<>(table, List.of(key));
    }

    public String table() {
        return table;
    }

    public List<Column<T>> columns() {
        return columns;
    }

    public String sql() {
        String names = columns.stream().map(Column::name).collect(Collectors.joining(", "));
        String values = columns.stream()
                .map(c -> c.type().equals("jsonb") ? "?::jsonb" : "?")
                .collect(Collectors.joining(", "));
        return "INSERT INTO " + table + " (" + names + ")\nVALUES (" + values + ")\nON CONFLICT ("
                + String.join(", ", key) + ") " + onConflict;
    }

    @Override
    public void accept(PreparedStatement st, T record) throws SQLException {
        for (int i = 0; i < columns.size(); i++) {
            columns.get(i).binder().bind(st, i + 1, record);
        }
    }

    /** Collects a table's columns in order. */
    public static final class Builder<T> {
        private final String table;
        private final List<String> key;
        private final List<Column<T>> columns = new ArrayList<>();

        private Builder(String table, List<String> key) {
            this.table = table;
            this.key = key;
        }

        public Builder<T> column(String name, String type, boolean nullable, Binder<T> binder) {
            columns.add(new Column<>(name, type, nullable, binder));
            return this;
        }

        public Builder<T> text(String name, Get<T, String> get) {
            return column(name, "text", false, (st, i, r) -> st.setString(i, get.of(r)));
        }

        public Builder<T> textOrNull(String name, Get<T, String> get) {
            return column(name, "text", true, (st, i, r) -> st.setString(i, get.of(r)));
        }

        public Builder<T> int8(String name, Get<T, Long> get) {
            return column(name, "bigint", false, (st, i, r) -> st.setLong(i, get.of(r)));
        }

        public Builder<T> int8OrNull(String name, Get<T, Long> get) {
            return column(name, "bigint", true, (st, i, r) -> setNullableLong(st, i, get.of(r)));
        }

        public Builder<T> int4(String name, Get<T, Integer> get) {
            return column(name, "integer", false, (st, i, r) -> st.setInt(i, get.of(r)));
        }

        public Builder<T> int4OrNull(String name, Get<T, Integer> get) {
            return column(name, "integer", true, (st, i, r) -> {
                Integer v = get.of(r);
                if (v == null) {
                    st.setNull(i, Types.INTEGER);
                } else {
                    st.setInt(i, v);
                }
            });
        }

        public Builder<T> float8(String name, Get<T, Double> get) {
            return column(name, "double precision", false, (st, i, r) -> st.setDouble(i, get.of(r)));
        }

        public Builder<T> float8OrNull(String name, Get<T, Double> get) {
            return column(name, "double precision", true, (st, i, r) -> setNullableDouble(st, i, get.of(r)));
        }

        public Builder<T> bool(String name, Get<T, Boolean> get) {
            return column(name, "boolean", false, (st, i, r) -> st.setBoolean(i, get.of(r)));
        }

        /** A timestamptz from milliseconds since the epoch. */
        public Builder<T> millis(String name, Get<T, Long> get) {
            return column(
                    name, "timestamp with time zone", false, (st, i, r) -> st.setObject(i, fromMillis(get.of(r))));
        }

        /** A timestamptz from microseconds since the epoch. */
        public Builder<T> micros(String name, Get<T, Long> get) {
            return column(
                    name, "timestamp with time zone", false, (st, i, r) -> st.setObject(i, fromMicros(get.of(r))));
        }

        /** A timestamptz from nanoseconds since the epoch; null when absent. */
        public Builder<T> nanosOrNull(String name, Get<T, Long> get) {
            return column(name, "timestamp with time zone", true, (st, i, r) -> {
                Long nanos = get.of(r);
                st.setObject(i, nanos == null ? null : fromNanos(nanos));
            });
        }

        public Builder<T> bytes(String name, Get<T, ByteBuffer> get) {
            return column(name, "bytea", false, (st, i, r) -> st.setBytes(i, toBytes(get.of(r))));
        }

        public Builder<T> bytesOrNull(String name, Get<T, ByteBuffer> get) {
            return column(name, "bytea", true, (st, i, r) -> {
                ByteBuffer b = get.of(r);
                st.setBytes(i, b == null ? null : toBytes(b));
            });
        }

        /** A bigint[] (information_schema's data_type "ARRAY"); never null. */
        public Builder<T> int8Array(String name, Get<T, List<Long>> get) {
            return column(
                    name,
                    "ARRAY",
                    false,
                    (st, i, r) -> st.setArray(
                            i,
                            st.getConnection().createArrayOf("bigint", get.of(r).toArray())));
        }

        public Builder<T> jsonbOrNull(String name, Get<T, String> get) {
            return column(name, "jsonb", true, (st, i, r) -> st.setString(i, get.of(r)));
        }

        /** A replayed row rewrites every non-key column. */
        public Upsert<T> updateAll() {
            return updateAllWhere(null);
        }

        /** As {@link #updateAll}, only where {@code condition} holds (e.g. the stored row is not newer). */
        public Upsert<T> updateAllWhere(String condition) {
            String set = columns.stream()
                    .map(Column::name)
                    .filter(c -> !key.contains(c))
                    .map(c -> c + " = EXCLUDED." + c)
                    .collect(Collectors.joining(", "));
            String sql = "DO UPDATE SET " + set + (condition == null ? "" : "\nWHERE " + condition);
            if (condition == null) {
                return new Upsert<>(table, key, columns, sql, OnConflict.UPDATE, null);
            }
            // A multi-row statement may not update one row twice, so a batch keeps one row per key,
            // chosen as this condition would: only a version condition is known.
            Matcher m = NOT_OLDER.matcher(condition);
            if (!m.matches() || !m.group(1).equals(table) || !m.group(2).equals(m.group(3))) {
                throw new IllegalArgumentException(table + ": only '" + table
                        + ".COLUMN <= EXCLUDED.COLUMN' is a known update condition, got '" + condition + "'");
            }
            return new Upsert<>(table, key, columns, sql, OnConflict.UPDATE_IF_NOT_OLDER, m.group(2));
        }

        /** The first row of a key stays. */
        public Upsert<T> keepFirst() {
            return new Upsert<>(table, key, columns, "DO NOTHING", OnConflict.KEEP_FIRST, null);
        }
    }

    static OffsetDateTime fromMicros(long micros) {
        return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000L)
                .atOffset(ZoneOffset.UTC);
    }

    static OffsetDateTime fromNanos(long nanos) {
        return Instant.ofEpochSecond(Math.floorDiv(nanos, 1_000_000_000L), Math.floorMod(nanos, 1_000_000_000L))
                .atOffset(ZoneOffset.UTC);
    }

    static OffsetDateTime fromMillis(long millis) {
        return Instant.ofEpochMilli(millis).atOffset(ZoneOffset.UTC);
    }

    private static byte[] toBytes(ByteBuffer buffer) {
        ByteBuffer b = buffer.duplicate();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    static void setNullableDouble(PreparedStatement st, int i, Double v) throws SQLException {
        if (v == null) {
            st.setNull(i, Types.DOUBLE);
        } else {
            st.setDouble(i, v);
        }
    }

    static void setNullableLong(PreparedStatement st, int i, Long v) throws SQLException {
        if (v == null) {
            st.setNull(i, Types.BIGINT);
        } else {
            st.setLong(i, v);
        }
    }
}
