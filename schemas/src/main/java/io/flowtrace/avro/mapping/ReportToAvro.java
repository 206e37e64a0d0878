package io.flowtrace.avro.mapping;

import io.flowtrace.report.FlowField;
import io.flowtrace.report.FlowFields;
import io.flowtrace.report.ReportVisitor;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
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
 *
 * <p>What the schema says about a field (its position, type, nullability, the class of a nested
 * record, an enum's symbols) is worked out once per record class ({@link Slot}), not per value:
 * this runs for every version of every flow the job emits, and this class's own calls were two
 * thirds of it, much of that per-value schema lookups, reflective construction of nested records and
 * enum lookups by class name (docs/BENCHMARKS.md, "The flow task after the one-walk decode").
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
            Slot slot = Slot.of(parent, name);
            if (slot != null && slot.target.getType() == Schema.Type.RECORD) {
                child = (IndexedRecord) parent.get(slot.pos);
                if (child == null) {
                    child = slot.newRecord();
                    parent.put(slot.pos, child);
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
        Slot slot = record == null ? null : Slot.of(record, name);
        if (slot == null) {
            requireReportOnly(name);
            return;
        }
        Schema target = slot.target;
        if (target.getType() == Schema.Type.RECORD) {
            return; // e.g. flow.vantage: a string in the report, a Vantage record in the contract; set by the caller
        }
        try {
            record.put(slot.pos, convert(value, slot));
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

    private static Object convert(Object value, Slot slot) {
        Schema target = slot.target;
        if (value == null) {
            return slot.nullable ? null : zero(target);
        }
        if (slot.nullable && value instanceof Long l && l < 0 && slot.numeric) {
            return null;
        }
        return switch (target.getType()) {
            case LONG -> value instanceof Double d ? Math.round(d) : (Long) value;
            case INT -> Math.toIntExact(value instanceof Double d ? Math.round(d) : (Long) value);
            case DOUBLE -> value instanceof Long l ? l.doubleValue() : (Double) value;
            case FLOAT -> value instanceof Long l ? l.floatValue() : ((Double) value).floatValue();
            case ENUM -> slot.enumSymbol(value.toString());
            case STRING, BOOLEAN, ARRAY -> value;
            default -> throw new ClassCastException("unsupported contract type " + target.getType());
        };
    }

    private static Object enumSymbol(Schema target, String symbol) {
        String known = target.hasEnumSymbol(symbol) ? symbol : target.getEnumDefault();
        return SpecificData.get().createEnum(known, target);
    }

    /**
     * A contract field as this filler needs it, resolved once per record class and field name: its
     * position, its type without the null branch, whether it is nullable and numeric, how to make
     * its nested record (the generated class's constructor, once looked up) and its enum constants
     * by report string.
     */
    private static final class Slot {
        /** Per generated record class: its fields by name. */
        private static final ClassValue<Map<String, Slot>> BY_CLASS = new ClassValue<>() {
            @Override
            protected Map<String, Slot> computeValue(Class<?> type) {
                return new ConcurrentHashMap<>();
            }
        };

        final int pos;
        final Schema target;
        final boolean nullable;
        final boolean numeric;
        private final MethodHandle constructor;
        private final Map<String, Object> enums;

        private Slot(Schema.Field field) {
            this.pos = field.pos();
            this.target = nonNull(field.schema());
            this.nullable = field.schema().isNullable();
            this.numeric = isNumeric(target);
            this.constructor = target.getType() == Schema.Type.RECORD ? constructor(target) : null;
            this.enums = target.getType() == Schema.Type.ENUM ? new ConcurrentHashMap<>() : null;
        }

        /** The slot of field {@code name} in {@code record}'s schema, or null when it has none. */
        static Slot of(IndexedRecord record, String name) {
            if (record instanceof GenericData.Record) { // one class for every schema: nothing to cache by
                Schema.Field field = record.getSchema().getField(name);
                return field == null ? null : new Slot(field);
            }
            Map<String, Slot> fields = BY_CLASS.get(record.getClass());
            Slot slot = fields.get(name);
            if (slot == null) {
                Schema.Field field = record.getSchema().getField(name);
                if (field == null) {
                    return null; // not cached: a report-only field fails or is skipped in requireReportOnly
                }
                slot = fields.computeIfAbsent(name, n -> new Slot(field));
            }
            return slot;
        }

        IndexedRecord newRecord() {
            if (constructor == null) {
                return (IndexedRecord) SpecificData.get().newRecord(null, target);
            }
            try {
                return (IndexedRecord) constructor.invoke();
            } catch (Throwable e) {
                throw new AvroRuntimeException("constructing a " + target.getFullName(), e);
            }
        }

        /** The enum constant of a report string: its upper-case symbol, or the enum's default. */
        Object enumSymbol(String report) {
            Object e = enums.get(report);
            if (e == null) {
                e = enums.computeIfAbsent(report, r -> ReportToAvro.enumSymbol(target, r.toUpperCase(Locale.ROOT)));
            }
            return e;
        }

        /** The no-argument constructor of a record's generated class, or null (a generic record). */
        private static MethodHandle constructor(Schema record) {
            Class<?> type = SpecificData.get().getClass(record);
            if (type == null || !IndexedRecord.class.isAssignableFrom(type)) {
                return null;
            }
            try {
                return MethodHandles.publicLookup().findConstructor(type, MethodType.methodType(void.class));
            } catch (ReflectiveOperationException e) {
                return null;
            }
        }
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
