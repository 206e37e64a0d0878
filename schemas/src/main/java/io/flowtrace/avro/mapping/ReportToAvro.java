package io.flowtrace.avro.mapping;

import io.flowtrace.report.FlowField;
import io.flowtrace.report.FlowFields;
import io.flowtrace.report.ReportVisitor;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;
import org.apache.avro.generic.IndexedRecord;
import org.apache.avro.specific.SpecificData;

/**
 * Fills a generated Avro record from a {@link io.flowtrace.report.FlowReport} walk, path by
 * path: the report field {@code a.b} lands in the Avro field {@code a.b} (docs/schemas.md promises
 * that the two contracts share paths). Driven by the Avro schema, not by a field list, so a field
 * added to both the report and the contract needs no code here. A report field the contract does
 * not have is skipped only when core's metric catalogue ({@link FlowFields}) marks it report-only;
 * any other is an error, so no output silently lacks a field. A contract field the report does not
 * visit keeps its default.
 *
 * <p>Value rules, from the report's conventions (core's FlowReport): a NaN decimal means "no
 * samples" and becomes null; a negative integer in a nullable numeric field means "absent" (the
 * report writes -1 for an MSS never announced); decimals land in long fields rounded to the
 * nearest unit; enum symbols are the upper-cased report strings, unknown ones become UNKNOWN.
 */
final class ReportToAvro implements ReportVisitor {
    /** The records being filled, innermost last; null marks an object the contract does not have. */
    private final List<IndexedRecord> path = new ArrayList<>();
    /** The report's object names down to the current one. */
    private final List<String> names = new ArrayList<>();

    ReportToAvro(IndexedRecord root) {
        path.add(root);
    }

    @Override
    public void beginObject(String name) {
        IndexedRecord parent = current();
        IndexedRecord child = null;
        if (parent != null) {
            Schema.Field field = parent.getSchema().getField(name);
            if (field != null && nonNull(field.schema()).getType() == Schema.Type.RECORD) {
                child = (IndexedRecord) parent.get(field.pos());
                if (child == null) {
                    child = (IndexedRecord) SpecificData.get().newRecord(null, nonNull(field.schema()));
                    parent.put(field.pos(), child);
                }
            }
        }
        path.add(child);
        names.add(name);
    }

    @Override
    public void endObject() {
        path.remove(path.size() - 1);
        names.remove(names.size() - 1);
    }

    @Override
    public void string(String name, String value) {
        put(name, value);
    }

    @Override
    public void integer(String name, long value) {
        put(name, value);
    }

    @Override
    public void decimal(String name, double value) {
        put(name, Double.isNaN(value) || Double.isInfinite(value) ? null : value);
    }

    @Override
    public void bool(String name, boolean value) {
        put(name, value);
    }

    @Override
    public void integers(String name, long[] values, int count) {
        List<Long> list = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            list.add(values[i]);
        }
        put(name, list);
    }

    private IndexedRecord current() {
        return path.get(path.size() - 1);
    }

    private void put(String name, Object value) {
        IndexedRecord record = current();
        Schema.Field field = record == null ? null : record.getSchema().getField(name);
        if (field == null) {
            requireReportOnly(name);
            return;
        }
        boolean nullable = field.schema().isNullable();
        Schema target = nonNull(field.schema());
        if (target.getType() == Schema.Type.RECORD) {
            return; // e.g. flow.vantage: a string in the report, a Vantage record in the contract; set by the caller
        }
        try {
            record.put(field.pos(), convert(value, target, nullable));
        } catch (ArithmeticException | ClassCastException e) {
            throw new AvroRuntimeException("report field " + name + " = " + value + " does not fit " + target, e);
        }
    }

    private void requireReportOnly(String name) {
        String jsonPath = names.isEmpty() ? name : String.join(".", names) + "." + name;
        FlowField f = FlowFields.byJsonPath(jsonPath);
        if (f == null) {
            throw new AvroRuntimeException(
                    "report field " + jsonPath + " is not in the metric catalogue (core FlowFields)");
        }
        if (f.inAvro()) {
            throw new AvroRuntimeException("report field " + jsonPath + " is missing from the " + contractName()
                    + " contract, and the metric catalogue does not mark it report-only");
        }
    }

    private String contractName() {
        return path.get(0).getSchema().getName();
    }

    private static Object convert(Object value, Schema target, boolean nullable) {
        if (value == null) {
            return nullable ? null : zero(target);
        }
        if (nullable && value instanceof Long l && l < 0 && isNumeric(target)) {
            return null;
        }
        return switch (target.getType()) {
            case LONG -> value instanceof Double d ? Math.round(d) : (Long) value;
            case INT -> Math.toIntExact(value instanceof Double d ? Math.round(d) : (Long) value);
            case DOUBLE -> value instanceof Long l ? l.doubleValue() : (Double) value;
            case FLOAT -> value instanceof Long l ? l.floatValue() : ((Double) value).floatValue();
            case ENUM -> enumSymbol(target, value.toString().toUpperCase(Locale.ROOT));
            case STRING, BOOLEAN, ARRAY -> value;
            default -> throw new ClassCastException("unsupported contract type " + target.getType());
        };
    }

    private static Object enumSymbol(Schema target, String symbol) {
        String known = target.hasEnumSymbol(symbol) ? symbol : target.getEnumDefault();
        return SpecificData.get().createEnum(known, target);
    }

    private static Object zero(Schema target) {
        return switch (target.getType()) {
            case LONG -> 0L;
            case INT -> 0;
            case DOUBLE -> 0.0;
            case FLOAT -> 0.0f;
            case BOOLEAN -> false;
            default -> throw new ClassCastException("no zero for non-nullable " + target.getType());
        };
    }

    private static boolean isNumeric(Schema s) {
        return switch (s.getType()) {
            case INT, LONG, FLOAT, DOUBLE -> true;
            default -> false;
        };
    }

    static Schema nonNull(Schema s) {
        if (s.getType() != Schema.Type.UNION) {
            return s;
        }
        for (Schema branch : s.getTypes()) {
            if (branch.getType() != Schema.Type.NULL) {
                return branch;
            }
        }
        return s;
    }
}
