package io.flowtrace.avro.mapping;

import io.flowtrace.avro.FlowRecord;
import io.flowtrace.avro.Vantage;
import io.flowtrace.report.FlowField;
import io.flowtrace.report.FlowValues;
import java.util.List;
import java.util.Locale;
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
        Object at = field.scope() == FlowField.Scope.DIRECTION ? record.get(side.jsonName()) : record;
        for (String name : field.path().split("\\.")) {
            if (!(at instanceof IndexedRecord r)) {
                return null;
            }
            org.apache.avro.Schema.Field f = r.getSchema().getField(name);
            at = f == null ? null : r.get(f.pos());
        }
        return reportValue(at);
    }

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
