package io.flowtrace.jobs.flow;

import io.flowtrace.avro.FlowRecord;
import io.flowtrace.report.FlowField;
import io.flowtrace.report.FlowFields;
import java.util.List;
import org.apache.avro.Schema;

/**
 * Where each {@code flow_summary} column of the metric catalogue ({@link FlowFields}) sits in a
 * {@link FlowRow}, and which value of a {@link io.flowtrace.report.FlowReport} walk fills it. The
 * walk hands the fields over in a fixed order (the flow fields, then the direction fields for c2s,
 * then for s2c: FlowReport), one value call per field, so a field is known by its position in the
 * walk; no paths are compared per row. Worked out once per JVM.
 */
public final class FlowRowLayout {
    public static final FlowRowLayout INSTANCE = new FlowRowLayout(FlowFields.FLOW, FlowFields.DIRECTION);

    /** The array of a {@link FlowRow} a slot is in. */
    public enum Kind {
        TEXT,
        INTEGER,
        DECIMAL,
        FLAG
    }

    /**
     * What fills a slot at one walk position; null positions fill nothing.
     *
     * @param sum a column of both directions: the two positions add up
     * @param round a decimal the Avro contract holds as a whole number (setup_us: a long of µs),
     *     rounded as the contract rounds it, so the column holds what it held when it was read
     *     from the record
     */
    record Target(FlowField field, Kind kind, int slot, boolean sum, boolean round) {}

    private final Target[] walk;
    private final int flowFields;
    private final int directionFields;
    private final int[] sizes = new int[Kind.values().length];

    private FlowRowLayout(List<FlowField> flow, List<FlowField> direction) {
        flowFields = flow.size();
        directionFields = direction.size();
        walk = new Target[flowFields + 2 * directionFields];
        for (int i = 0; i < flowFields; i++) {
            walk[i] = target(flow.get(i));
        }
        for (int i = 0; i < directionFields; i++) {
            FlowField f = direction.get(i);
            walk[flowFields + i] = target(f);
            Target c2s = walk[flowFields + i];
            // a sum of both directions fills one slot from both positions; a per-direction column has its own
            walk[flowFields + directionFields + i] = c2s != null && c2s.sum() ? c2s : target(f);
        }
    }

    private Target target(FlowField f) {
        FlowField.Column c = f.column();
        if (c == null) {
            return null;
        }
        if (!f.inAvro()) {
            throw new IllegalStateException(f.path() + " has a column but is report-only");
        }
        Kind kind = switch (c.type()) {
            case TEXT -> Kind.TEXT;
            case BIGINT, INTEGER, TIMESTAMPTZ -> Kind.INTEGER;
            case DOUBLE_PRECISION -> Kind.DECIMAL;
            case BOOLEAN -> Kind.FLAG;
        };
        boolean fits = switch (f.kind()) {
            case STRING -> kind == Kind.TEXT;
            case INTEGER -> kind == Kind.INTEGER || kind == Kind.DECIMAL;
            case DECIMAL -> kind == Kind.DECIMAL;
            case BOOL -> kind == Kind.FLAG;
            case INTEGERS -> false;
        };
        if (!fits) {
            throw new IllegalStateException(
                    f.path() + ": a " + f.kind() + " value has no row slot for a " + c.type() + " column");
        }
        return new Target(
                f,
                kind,
                sizes[kind.ordinal()]++,
                c.columns() == FlowField.Columns.SUM_OF_DIRECTIONS,
                f.kind() == FlowField.Kind.DECIMAL
                        && wholeInContract(f.jsonPaths().get(0)));
    }

    /** Whether the Avro contract's field at a JSON path is a long or an int. */
    private static boolean wholeInContract(String jsonPath) {
        Schema schema = FlowRecord.getClassSchema();
        for (String name : jsonPath.split("\\.")) {
            schema = nonNull(schema).getField(name).schema();
        }
        Schema.Type type = nonNull(schema).getType();
        return type == Schema.Type.LONG || type == Schema.Type.INT;
    }

    private static Schema nonNull(Schema s) {
        return s.getType() == Schema.Type.UNION
                ? s.getTypes().stream()
                        .filter(t -> t.getType() != Schema.Type.NULL)
                        .findFirst()
                        .orElseThrow()
                : s;
    }

    /** Slots of a kind in a row. */
    public int size(Kind kind) {
        return sizes[kind.ordinal()];
    }

    /** The target of the value at {@code position} of the walk, null when no column reads it. */
    Target at(int position) {
        return walk[position];
    }

    int positions() {
        return walk.length;
    }

    /**
     * The slot of a column field; {@code side} chooses the direction of a per-direction column (a
     * sum of both directions and a flow field have one slot whatever the side).
     */
    public int slot(FlowField field, FlowField.Side side) {
        int from = field.scope() == FlowField.Scope.FLOW ? 0 : flowFields;
        int to = field.scope() == FlowField.Scope.FLOW ? flowFields : flowFields + directionFields;
        int offset = side == FlowField.Side.S2C && field.scope() == FlowField.Scope.DIRECTION ? directionFields : 0;
        for (int i = from; i < to; i++) {
            Target t = walk[i + offset];
            if (t != null && t.field() == field) {
                return t.slot();
            }
        }
        throw new IllegalArgumentException(field.path() + " has no flow_summary column");
    }

    /** The kind of slot a column field is in. */
    public Kind kind(FlowField field) {
        for (Target t : walk) {
            if (t != null && t.field() == field) {
                return t.kind();
            }
        }
        throw new IllegalArgumentException(field.path() + " has no flow_summary column");
    }
}
