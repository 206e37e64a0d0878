package io.flowtrace.jobs.output;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One sink batch with at most one row per key of its table, the row that applying the batch's
 * rows one by one would leave ({@link Upsert.OnConflict}): the later row for DO UPDATE, the later
 * of the rows with the highest version for {@code DO UPDATE ... WHERE stored.v <= EXCLUDED.v}, the
 * first for DO NOTHING. Required, not an optimisation, once the batch runs as multi-row statements
 * (pgjdbc's {@code reWriteBatchedInserts}): PostgreSQL refuses an {@code ON CONFLICT DO UPDATE}
 * that touches one row twice in one statement.
 *
 * <p>The key and version are read through the table's own column binders ({@link ColumnValues}:
 * the values the row would bind), so the rule cannot disagree with the SQL, and the record type stays the sink's.
 * Not thread-safe: one per sink writer.
 */
final class NewestPerKey<T> {
    private final Upsert<T> upsert;
    private final int[] key;
    private final int version;
    private final Map<List<Object>, Row<T>> rows = new LinkedHashMap<>();
    private final ColumnValues capture = new ColumnValues();

    private record Row<T>(T record, Object version) {}

    NewestPerKey(Upsert<T> upsert) {
        this.upsert = upsert;
        this.key = upsert.keyColumns();
        this.version = upsert.versionColumn();
    }

    /** Adds a row to the batch: it replaces the batch's row of its key where the upsert would. */
    void add(T record) throws SQLException {
        Object[] k = new Object[key.length];
        for (int i = 0; i < key.length; i++) {
            k[i] = capture.value(upsert, key[i], record);
        }
        Object v = version < 0 ? null : capture.value(upsert, version, record);
        rows.merge(Arrays.asList(k), new Row<>(record, v), this::kept);
    }

    private Row<T> kept(Row<T> earlier, Row<T> later) {
        return switch (upsert.conflict()) {
            case UPDATE -> later;
            case KEEP_FIRST -> earlier;
            case UPDATE_IF_NOT_OLDER -> compare(earlier.version(), later.version()) <= 0 ? later : earlier;
        };
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private int compare(Object earlier, Object later) {
        if (earlier == null || later == null) {
            // SQL: stored <= NULL is not true, so a row without a version never replaces, nor is replaced by
            // one with a version; a NULL stored version is replaced by nothing either. Keep the earlier row.
            return 1;
        }
        return ((Comparable) earlier).compareTo(later);
    }

    int size() {
        return rows.size();
    }

    boolean isEmpty() {
        return rows.isEmpty();
    }

    /** The batch's rows in the order their keys first appeared; the batch is empty afterwards. */
    List<T> drain() {
        List<T> out = new ArrayList<>(rows.size());
        for (Row<T> r : rows.values()) {
            out.add(r.record());
        }
        rows.clear();
        return out;
    }
}
