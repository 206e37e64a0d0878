package io.flowtrace.avro.mapping;

import io.flowtrace.avro.FlowRecord;
import io.flowtrace.report.FlowField;
import io.flowtrace.report.FlowFields;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;

/**
 * Where each value of a {@link io.flowtrace.report.FlowReport} walk goes in the {@link FlowRecord}
 * contract, worked out once per JVM for {@link FlowRecordEncoder}: the contract's leaves (fields
 * that are not records) in schema order, which is the order of their bytes (a record is its fields'
 * encodings one after the other), and for each walk position (the flow fields of {@link
 * FlowFields#FLOW}, then {@link FlowFields#DIRECTION} for c2s, then for s2c) the leaf of the same
 * JSON path (docs/schemas.md: the two contracts share paths). What {@link ReportToAvro} checks per
 * value is checked here once: a report field the contract lacks must be report-only in the
 * catalogue, and a report value kind must fit its contract type. A contract shape the encoder does
 * not write (a nullable record, a map, bytes, an array of anything but long) fails here, at class
 * initialisation, not on a flow.
 */
final class FlowRecordPlan {
    static final FlowRecordPlan INSTANCE = new FlowRecordPlan(FlowRecord.getClassSchema());

    /**
     * One contract field that is not a record.
     *
     * @param nullIndex the union branch of null, -1 when the field is not nullable
     * @param valueIndex the union branch of the value (0 when not nullable)
     */
    record Leaf(
            String path, Schema.Type type, Schema schema, int nullIndex, int valueIndex, Map<String, Integer> enums) {
        /** The ordinal of a report enum string: its upper-case symbol, or the enum's default. */
        int ordinal(String report) {
            Integer o = enums.get(report);
            if (o == null) {
                o = enums.computeIfAbsent(report, r -> {
                    String symbol = r.toUpperCase(Locale.ROOT);
                    String known = schema.hasEnumSymbol(symbol) ? symbol : schema.getEnumDefault();
                    if (known == null) {
                        throw new IllegalArgumentException(
                                path + ": " + r + " is not a symbol and the enum has no default");
                    }
                    return schema.getEnumOrdinal(known);
                });
            }
            return o;
        }

        /** The report name of an enum ordinal (the lower-case symbol, as AvroFlowValues reads it). */
        String reportName(int ordinal) {
            return schema.getEnumSymbols().get(ordinal).toLowerCase(Locale.ROOT);
        }
    }

    private final Leaf[] leaves;
    private final boolean[] initialNulls;
    private final int[] leafAt;
    private final String[] nameAt;
    private final Map<FlowField, int[]> leafOf = new IdentityHashMap<>();
    private final int agentId;
    private final int interfaceName;
    private final int recordTime;

    FlowRecordPlan(Schema schema) {
        List<Leaf> list = new ArrayList<>();
        flatten(schema, "", list);
        leaves = list.toArray(Leaf[]::new);
        initialNulls = new boolean[leaves.length];
        Map<String, Integer> byPath = new HashMap<>();
        for (int i = 0; i < leaves.length; i++) {
            initialNulls[i] = leaves[i].nullIndex() >= 0;
            byPath.put(leaves[i].path(), i);
        }
        List<FlowField> flow = FlowFields.FLOW;
        List<FlowField> direction = FlowFields.DIRECTION;
        leafAt = new int[flow.size() + 2 * direction.size()];
        nameAt = new String[leafAt.length];
        int p = 0;
        for (FlowField f : flow) {
            int leaf = resolve(f, f.path(), byPath, schema);
            leafOf.put(f, new int[] {leaf, leaf});
            nameAt[p] = f.name();
            leafAt[p++] = leaf;
        }
        for (FlowField.Side side : FlowField.Side.values()) {
            for (FlowField f : direction) {
                int leaf = resolve(f, side.jsonName() + "." + f.path(), byPath, schema);
                leafOf.computeIfAbsent(f, x -> new int[2])[side.ordinal()] = leaf;
                nameAt[p] = f.name();
                leafAt[p++] = leaf;
            }
        }
        agentId = required(byPath, "flow.vantage.agent_id");
        interfaceName = required(byPath, "flow.vantage.interface_name");
        recordTime = required(byPath, "record_time_us");
    }

    private static void flatten(Schema record, String prefix, List<Leaf> out) {
        for (Schema.Field f : record.getFields()) {
            String path = prefix + f.name();
            Schema s = f.schema();
            int nullIndex = -1;
            int valueIndex = 0;
            if (s.getType() == Schema.Type.UNION) {
                List<Schema> branches = s.getTypes();
                if (branches.size() != 2) {
                    throw new IllegalStateException(path + ": only unions of null and one type are planned");
                }
                nullIndex = branches.get(0).getType() == Schema.Type.NULL ? 0 : 1;
                valueIndex = 1 - nullIndex;
                s = branches.get(valueIndex);
            }
            switch (s.getType()) {
                case RECORD -> {
                    if (nullIndex >= 0) {
                        throw new IllegalStateException(path + ": a nullable record is not planned");
                    }
                    flatten(s, path + ".", out);
                }
                case ARRAY -> {
                    if (s.getElementType().getType() != Schema.Type.LONG) {
                        throw new IllegalStateException(path + ": only arrays of long are planned");
                    }
                    out.add(new Leaf(path, s.getType(), s, nullIndex, valueIndex, null));
                }
                case ENUM -> out.add(new Leaf(path, s.getType(), s, nullIndex, valueIndex, new ConcurrentHashMap<>()));
                case LONG, INT, BOOLEAN, DOUBLE, FLOAT, STRING ->
                    out.add(new Leaf(path, s.getType(), s, nullIndex, valueIndex, null));
                default -> throw new IllegalStateException(path + ": " + s.getType() + " is not planned");
            }
        }
    }

    /** The leaf of a walk value at {@code jsonPath}, -1 for a value the contract does not hold as a leaf. */
    private int resolve(FlowField f, String jsonPath, Map<String, Integer> byPath, Schema schema) {
        Integer leaf = byPath.get(jsonPath);
        if (leaf == null) {
            if (isRecord(schema, jsonPath)) {
                return -1; // flow.vantage: a string in the report, a record in the contract, set by the caller
            }
            if (f.inAvro()) {
                throw new IllegalStateException("report field " + jsonPath + " is missing from the " + schema.getName()
                        + " contract, and the metric catalogue does not mark it report-only");
            }
            return -1;
        }
        Schema.Type type = leaves[leaf].type();
        boolean fits = switch (f.kind()) {
            case STRING -> type == Schema.Type.STRING || type == Schema.Type.ENUM;
            case INTEGER, DECIMAL ->
                switch (type) {
                    case LONG, INT, DOUBLE, FLOAT -> true;
                    default -> false;
                };
            case BOOL -> type == Schema.Type.BOOLEAN;
            case INTEGERS -> type == Schema.Type.ARRAY;
        };
        if (!fits) {
            throw new IllegalStateException("report field " + jsonPath + " (" + f.kind() + ") does not fit " + type);
        }
        return leaf;
    }

    private static boolean isRecord(Schema schema, String jsonPath) {
        Schema s = schema;
        for (String name : jsonPath.split("\\.")) {
            Schema r = ReportToAvro.nonNull(s);
            Schema.Field f = r.getType() == Schema.Type.RECORD ? r.getField(name) : null;
            if (f == null) {
                return false;
            }
            s = f.schema();
        }
        return ReportToAvro.nonNull(s).getType() == Schema.Type.RECORD;
    }

    private static int required(Map<String, Integer> byPath, String path) {
        Integer leaf = byPath.get(path);
        if (leaf == null) {
            throw new IllegalStateException("the FlowRecord contract has no " + path);
        }
        return leaf;
    }

    int leaves() {
        return leaves.length;
    }

    Leaf leaf(int i) {
        return leaves[i];
    }

    void initialNulls(boolean[] into) {
        System.arraycopy(initialNulls, 0, into, 0, initialNulls.length);
    }

    int positions() {
        return leafAt.length;
    }

    int leafAt(int position) {
        return leafAt[position];
    }

    String nameAt(int position) {
        return nameAt[position];
    }

    /** The leaf of a catalogue field ({@code side} for a direction field), -1 when the contract has none. */
    int leafOf(FlowField field, FlowField.Side side) {
        int[] at = leafOf.get(field);
        if (at == null) {
            return -1;
        }
        return at[side == FlowField.Side.S2C && field.scope() == FlowField.Scope.DIRECTION ? 1 : 0];
    }

    int agentId() {
        return agentId;
    }

    int interfaceName() {
        return interfaceName;
    }

    int recordTime() {
        return recordTime;
    }
}
