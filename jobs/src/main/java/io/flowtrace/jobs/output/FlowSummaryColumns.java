package io.flowtrace.jobs.output;

import io.flowtrace.avro.mapping.AvroFlowValues;
import io.flowtrace.jobs.flow.FlowSummary;
import io.flowtrace.report.FlowField;
import io.flowtrace.report.FlowFields;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;

/**
 * The flow_summary upsert, its columns taken from core's metric catalogue ({@link FlowFields}: each
 * field's declared column, one per flow field, c2s_ and s2c_ per direction, or the sum of both
 * directions) and filled from the flow's Avro record by field; then the columns only the job
 * knows. A field gets a column by declaring one in the catalogue and adding it in a migration.
 */
final class FlowSummaryColumns {
    /** The flow identity: the conflict target. */
    static final String[] KEY = {"vantage", "client", "server", "instance"};

    private FlowSummaryColumns() {}

    static Upsert<FlowSummary> upsert() {
        Upsert.Builder<FlowSummary> b = Upsert.into("flow_summary", KEY);
        for (FlowField f : FlowFields.all()) {
            FlowField.Column c = f.column();
            if (c == null) {
                continue;
            }
            // the binders hold the field's value positions in the record and its column type, not the
            // field: they ship to the task managers serialised; reading a row walks positions, not paths
            String path = f.jsonPaths().get(0);
            FlowField.SqlType type = c.type();
            switch (c.columns()) {
                case ONE -> {
                    int[] at = AvroFlowValues.positions(path);
                    b.column(c.name(), sqlName(type), f.nullable(), (st, i, s) -> bind(st, i, type, value(s, at)));
                }
                case PER_DIRECTION -> {
                    int[] c2s = AvroFlowValues.positions(f.jsonPaths().get(0));
                    int[] s2c = AvroFlowValues.positions(f.jsonPaths().get(1));
                    b.column(
                            c.names().get(0),
                            sqlName(type),
                            f.nullable(),
                            (st, i, s) -> bind(st, i, type, value(s, c2s)));
                    b.column(
                            c.names().get(1),
                            sqlName(type),
                            f.nullable(),
                            (st, i, s) -> bind(st, i, type, value(s, s2c)));
                }
                case SUM_OF_DIRECTIONS ->
                    b.column(
                            c.name(),
                            sqlName(type),
                            f.nullable(),
                            (st, i, s) -> bind(
                                    st, i, type, FlowFields.bothDirections(values(s), FlowFields.byJsonPath(path))));
            }
        }
        return b.bool("final", s -> s.finalRecord)
                .int8("late_packets", s -> s.latePackets)
                .int8("record_time_us", s -> s.record.getRecordTimeUs())
                .jsonb("report", s -> s.reportJson)
                .updateAllWhere("flow_summary.record_time_us <= EXCLUDED.record_time_us");
    }

    private static Object value(FlowSummary s, int[] at) {
        return AvroFlowValues.valueAt(s.record, at);
    }

    private static AvroFlowValues values(FlowSummary s) {
        return new AvroFlowValues(s.record);
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

    private static void bind(PreparedStatement st, int i, FlowField.SqlType type, Object value) throws SQLException {
        if (value == null) {
            st.setNull(
                    i,
                    switch (type) {
                        case TEXT -> Types.VARCHAR;
                        case BIGINT -> Types.BIGINT;
                        case INTEGER -> Types.INTEGER;
                        case DOUBLE_PRECISION -> Types.DOUBLE;
                        case BOOLEAN -> Types.BOOLEAN;
                        case TIMESTAMPTZ -> Types.TIMESTAMP_WITH_TIMEZONE;
                    });
            return;
        }
        switch (type) {
            case TEXT -> st.setString(i, value.toString());
            case BIGINT -> st.setLong(i, ((Number) value).longValue());
            case INTEGER -> st.setInt(i, ((Number) value).intValue());
            case DOUBLE_PRECISION -> st.setDouble(i, ((Number) value).doubleValue());
            case BOOLEAN -> st.setBoolean(i, (Boolean) value);
            case TIMESTAMPTZ -> st.setObject(i, Upsert.fromMicros(((Number) value).longValue()));
        }
    }
}
