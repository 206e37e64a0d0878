package io.flowtrace.avro.mapping;

import io.flowtrace.avro.FlowRecord;
import io.flowtrace.avro.Vantage;
import io.flowtrace.report.FlowField;
import io.flowtrace.report.FlowValues;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericEnumSymbol;
import org.apache.avro.generic.IndexedRecord;

/**
 * A {@link FlowRecord}'s values by catalogue field: the field's path (the JSON path, which the
 * contract shares) walked through the record. Values as the report has them: enums as their
 * lower-case report names, the vantage record as {@code agent/interface}, arrays as long[]. A
 * field the contract does not carry (report-only) or an absent value is null.
 */
public final class AvroFlowValues implements FlowValues {
    private final FlowRecord record;

    public AvroFlowValues(FlowRecord record) {
        this.record = record;
    }

    @Override
    public Object value(FlowField field, FlowField.Side side) {
        if (!field.inAvro()) {
            return null;
        }
        Map<String, int[]> positions =
                field.scope() == FlowField.Scope.FLOW || side == null ? FLOW : side == FlowField.Side.C2S ? C2S : S2C;
        int[] at = positions.get(field.path());
        if (at == null) {
            at = positions.computeIfAbsent(field.path(), p -> positions(scoped(field, side)));
        }
        return valueAt(record, at);
    }

    /**
     * The field positions of a JSON path in {@link FlowRecord}'s schema ({@code c2s.rtt_us.avg}:
     * the position of c2s, of rtt_us in its record, of avg in that), resolved once per path so
     * reading a value walks positions, not names (no {@code split}, no lookup by name per value);
     * null when the contract has no such path.
     */
    public static int[] positions(String jsonPath) {
        String[] names = jsonPath.split("\\.");
        int[] at = new int[names.length];
        Schema schema = FlowRecord.getClassSchema();
        for (int i = 0; i < names.length; i++) {
            Schema record = ReportToAvro.nonNull(schema);
            Schema.Field f = record.getType() == Schema.Type.RECORD ? record.getField(names[i]) : null;
            if (f == null) {
                return null;
            }
            at[i] = f.pos();
            schema = f.schema();
        }
        return at;
    }

    /** The value at {@link #positions} in {@code record}, as the report has it; null when absent. */
    public static Object valueAt(FlowRecord record, int[] at) {
        if (at == null) {
            return null;
        }
        Object v = record;
        for (int pos : at) {
            if (!(v instanceof IndexedRecord r)) {
                return null;
            }
            v = r.get(pos);
        }
        return reportValue(v);
    }

    private static String scoped(FlowField field, FlowField.Side side) {
        return field.scope() == FlowField.Scope.DIRECTION ? side.jsonName() + "." + field.path() : field.path();
    }

    /** Resolved positions by field path, per scope (a direction field has one per side). */
    private static final Map<String, int[]> FLOW = new ConcurrentHashMap<>();

    private static final Map<String, int[]> C2S = new ConcurrentHashMap<>();
    private static final Map<String, int[]> S2C = new ConcurrentHashMap<>();

    private static Object reportValue(Object v) {
        if (v instanceof Vantage vantage) {
            return PacketEvents.vantage(vantage);
        }
        if (v instanceof Enum<?> e) {
            return e.name().toLowerCase(Locale.ROOT);
        }
        if (v instanceof GenericEnumSymbol<?> e) {
            return e.toString().toLowerCase(Locale.ROOT);
        }
        if (v instanceof List<?> list) {
            long[] values = new long[list.size()];
            for (int i = 0; i < values.length; i++) {
                values[i] = ((Number) list.get(i)).longValue();
            }
            return values;
        }
        return v;
    }
}
