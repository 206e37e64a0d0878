package io.flowtrace.jobs.output;

import java.lang.reflect.Proxy;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;

/**
 * The values a row's column binders would bind ({@link Upsert.Column#binder()}), read through a
 * PreparedStatement that only remembers the parameter set: the key and version of a row for
 * {@link NewestPerKey}, a whole row for a COPY. A binder that asks its statement for more than
 * setting its parameter (an array's {@code getConnection()}) fails with an SQLException.
 * Not thread-safe: one per writer.
 */
public final class ColumnValues {
    private Object value;
    private final PreparedStatement statement = (PreparedStatement) Proxy.newProxyInstance(
            PreparedStatement.class.getClassLoader(), new Class<?>[] {PreparedStatement.class}, (p, m, args) -> {
                String name = m.getName();
                if (name.startsWith("set") && args != null && args.length >= 2 && args[0] instanceof Integer) {
                    value = name.equals("setNull") ? null : args[1];
                    return null;
                }
                throw new SQLFeatureNotSupportedException(
                        "a column's binder may only set its parameter, not call " + name);
            });

    /** The value column {@code column} (its position in {@link Upsert#columns()}) binds for {@code record}; null for NULL. */
    public <T> Object value(Upsert<T> upsert, int column, T record) throws SQLException {
        value = null;
        upsert.columns().get(column).binder().bind(statement, 1, record);
        return value;
    }

    /** Every column's value, in column order. */
    public <T> Object[] row(Upsert<T> upsert, T record) throws SQLException {
        Object[] row = new Object[upsert.columns().size()];
        for (int i = 0; i < row.length; i++) {
            row[i] = value(upsert, i, record);
        }
        return row;
    }
}
