package io.flowtrace.report;

import io.flowtrace.core.net.FlowKey;
import io.flowtrace.core.tcp.TcpFlowAnalyzer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The {@code analyze --json} contract for one flow instance, as a walk over the fields of
 * {@link FlowFields} in their order: flow fields, then the direction fields under {@code c2s} and
 * again under {@code s2c}. Objects ({@code setup}, {@code slow_start} ...) open and close where the
 * fields' paths do. Times are microseconds (epoch for instants); RTTs are microseconds with
 * nanosecond precision.
 */
public final class FlowReport {
    private FlowReport() {}

    private static final Walk FLOW = Walk.of(FlowFields.FLOW);
    private static final Walk DIRECTION = Walk.of(FlowFields.DIRECTION);

    /**
     * The values of one analysed flow instance by catalogue field, as every output writes them (a
     * nullable integer of -1 and a decimal without samples are null): how the text outputs read
     * the fields they show without walking the whole record.
     */
    public static FlowValues values(FlowKey key, long instance, TcpFlowAnalyzer flow) {
        return new FlowSubject(key, instance, flow);
    }

    public static void visit(FlowKey key, long instance, TcpFlowAnalyzer flow, ReportVisitor v) {
        FlowSubject subject = new FlowSubject(key, instance, flow);
        Objects objects = new Objects(v);
        FLOW.emit(subject, objects, v);
        objects.enter(NONE);
        for (FlowField.Side side : FlowField.Side.values()) {
            subject.side(side);
            v.beginObject(side.jsonName());
            DIRECTION.emit(subject, objects, v);
            objects.enter(NONE);
            v.endObject();
        }
    }

    /**
     * Fields in report order with each one's name and enclosing objects ({@code slow_start.exit}:
     * exit, [slow_start]), worked out once: the walk runs per flow record, and deriving them per
     * record was a third of {@code analyze --json}'s time on short connections
     * (docs/BENCHMARKS.md "The reader, the flow key and the JSON writer"). The objects' names are interned, so comparing
     * the open objects with a field's is mostly a reference check.
     */
    private record Walk(FlowField[] fields, String[] names, String[][] parents, FlowField.LongValue[] orAbsent) {
        static Walk of(List<FlowField> list) {
            FlowField[] fields = list.toArray(FlowField[]::new);
            String[] names = new String[fields.length];
            String[][] parents = new String[fields.length][];
            FlowField.LongValue[] orAbsent = new FlowField.LongValue[fields.length];
            for (int i = 0; i < fields.length; i++) {
                if (fields[i].nullable() && fields[i].value() instanceof FlowField.LongValue l) {
                    orAbsent[i] = l;
                }
                String[] parts = fields[i].path().split("\\.");
                for (int j = 0; j < parts.length; j++) {
                    parts[j] = parts[j].intern();
                }
                names[i] = parts[parts.length - 1];
                parents[i] = Arrays.copyOf(parts, parts.length - 1);
            }
            return new Walk(fields, names, parents, orAbsent);
        }

        void emit(FlowSubject subject, Objects objects, ReportVisitor v) {
            for (int i = 0; i < fields.length; i++) {
                objects.enter(parents[i]);
                FlowField.LongValue l = orAbsent[i];
                if (l == null) {
                    fields[i].value().emit(names[i], subject, v);
                    continue;
                }
                // a nullable integer's negative value means "none": one rule for JSON, CSV, Avro and SQL
                long value = l.of().applyAsLong(subject);
                if (value < 0) {
                    v.absent(names[i]);
                } else {
                    v.integer(names[i], value);
                }
            }
        }
    }

    private static final String[] NONE = new String[0];

    /** The report objects open at the current field: closes and opens objects as the paths require. */
    private static final class Objects {
        private final ReportVisitor v;
        private final List<String> open = new ArrayList<>();

        Objects(ReportVisitor v) {
            this.v = v;
        }

        /** Makes {@code parts} the open objects ({@link #NONE} closes all). */
        void enter(String[] parts) {
            int parents = parts.length;
            int common = 0;
            while (common < open.size() && common < parents && open.get(common).equals(parts[common])) {
                common++;
            }
            while (open.size() > common) {
                open.remove(open.size() - 1);
                v.endObject();
            }
            for (int i = common; i < parents; i++) {
                open.add(parts[i]);
                v.beginObject(parts[i]);
            }
        }
    }
}
