package io.flowtrace.core.report;

import io.flowtrace.core.net.FlowKey;
import io.flowtrace.core.tcp.TcpFlowAnalyzer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code analyze --json} contract for one flow instance, as a walk over the fields of
 * {@link FlowFields} in their order: flow fields, then the direction fields under {@code c2s} and
 * again under {@code s2c}. Objects ({@code setup}, {@code slow_start} ...) open and close where the
 * fields' paths do. Times are microseconds (epoch for instants); RTTs are microseconds with
 * nanosecond precision.
 */
public final class FlowReport {
    private FlowReport() {}

    /** Each field's enclosing objects ({@code slow_start.exit}: [slow_start]), split once: the walk runs per flow record. */
    private static final Map<FlowField, String[]> PARENTS = parents();

    private static Map<FlowField, String[]> parents() {
        Map<FlowField, String[]> parents = new IdentityHashMap<>();
        for (FlowField f : FlowFields.all()) {
            String[] parts = f.path().split("\\.");
            parents.put(f, Arrays.copyOf(parts, parts.length - 1));
        }
        return parents;
    }

    public static void visit(FlowKey key, long instance, TcpFlowAnalyzer flow, ReportVisitor v) {
        FlowSubject subject = new FlowSubject(key, instance, flow);
        Objects objects = new Objects(v);
        for (FlowField f : FlowFields.FLOW) {
            objects.enter(PARENTS.get(f));
            f.value().emit(f.name(), subject, v);
        }
        objects.enter(NONE);
        for (FlowField.Side side : FlowField.Side.values()) {
            subject.side(side);
            v.beginObject(side.jsonName());
            for (FlowField f : FlowFields.DIRECTION) {
                objects.enter(PARENTS.get(f));
                f.value().emit(f.name(), subject, v);
            }
            objects.enter(NONE);
            v.endObject();
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
