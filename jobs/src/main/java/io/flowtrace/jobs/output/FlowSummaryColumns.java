package io.flowtrace.jobs.output;

import io.flowtrace.jobs.flow.FlowRow;
import io.flowtrace.jobs.flow.FlowRowLayout;
import io.flowtrace.report.FlowField;
import io.flowtrace.report.FlowFields;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.List;

/**
 * The flow_summary upsert, its columns taken from core's metric catalogue ({@link FlowFields}: each
 * field's declared column, one per flow field, c2s_ and s2c_ per direction, or the sum of both
 * directions) and filled from the typed slots of a {@link FlowRow} ({@link FlowRowLayout}); then the
 * columns only the job knows. A field gets a column by declaring one in the catalogue and adding it
 * in a migration.
 */
final class FlowSummaryColumns {
    /** The flow identity: the conflict target. */
    static final String[] KEY = {"vantage", "client", "server", "instance"};

    private FlowSummaryColumns() {}

    static Upsert<FlowRow> upsert() {
        FlowRowLayout layout = FlowRowLayout.INSTANCE;
        Upsert.Builder<FlowRow> b = Upsert.into("flow_summary", KEY);
        for (FlowField f : FlowFields.all()) {
            FlowField.Column c = f.column();
            if (c == null) {
                continue;
            }
            // the binders hold the slot and the column type, not the field: they ship to the task
            // managers serialised
            FlowField.SqlType type = c.type();
            FlowRowLayout.Kind kind = layout.kind(f);
            List<String> names = c.names();
            for (int side = 0; side < names.size(); side++) {
                int slot = layout.slot(f, FlowField.Side.values()[side]);
                b.column(names.get(side), sqlName(type), f.nullable(), (st, i, r) -> bind(st, i, type, kind, slot, r));
            }
        }
        return b.bool("final", r -> r.finalRecord)
                .int8("late_packets", r -> r.latePackets)
                .int8("record_time_us", r -> r.recordTimeUs)
                // NULL in a short flow's close-time row under --flow-rows all, filled by its final row (V13)
                .jsonbOrNull("report", r -> r.reportJson)
                .updateAllWhere("flow_summary.record_time_us <= EXCLUDED.record_time_us");
    }

    /** information_schema's data_type of a catalogue column type. */
    static String sqlName(FlowField.SqlType type) {
        return switch (type) {
            case TEXT -> "text";
            case BIGINT -> "bigint";
            case INTEGER -> "integer";
            case DOUBLE_PRECISION -> "double precision";
            case BOOLEAN -> "boolean";
            case TIMESTAMPTZ -> "timestamp with time zone";
        };
    }

    private static void bind(
            PreparedStatement st, int i, FlowField.SqlType type, FlowRowLayout.Kind kind, int slot, FlowRow r)
            throws SQLException {
        switch (kind) {
            case TEXT -> {
                if (r.texts[slot] == null) {
                    st.setNull(i, Types.VARCHAR);
                } else {
                    st.setString(i, r.texts[slot]);
                }
            }
            case FLAG -> st.setBoolean(i, r.flags[slot]);
            case DECIMAL -> Upsert.setNullableDouble(st, i, Double.isNaN(r.decimals[slot]) ? null : r.decimals[slot]);
            case INTEGER -> {
                long v = r.integers[slot];
                if (r.nullIntegers[slot]) {
                    st.setNull(
                            i,
                            switch (type) {
                                case INTEGER -> Types.INTEGER;
                                case TIMESTAMPTZ -> Types.TIMESTAMP_WITH_TIMEZONE;
                                default -> Types.BIGINT;
                            });
                } else if (type == FlowField.SqlType.INTEGER) {
                    st.setInt(i, (int) v);
                } else if (type == FlowField.SqlType.TIMESTAMPTZ) {
                    st.setObject(i, Upsert.fromMicros(v));
                } else {
                    st.setLong(i, v);
                }
            }
        }
    }
}
