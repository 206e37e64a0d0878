package io.flowtrace.core.report;

import io.flowtrace.core.net.FlowKey;
import io.flowtrace.core.tcp.TcpFlowAnalyzer;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code analyze --json} contract for one flow instance, as a walk over the fields of
 * {@link FlowFields} in their order: flow fields, then the direction fields under {@code c2s} and
 * again under {@code s2c}. Objects ({@code setup}, {@code slow_start} ...) open and close where the
 * fields' paths do. Times are microseconds (epoch for instants); RTTs are microseconds with
 * nanosecond precision.
 */
public final class FlowReport {
    private FlowReport() {
    }

    public static void visit(FlowKey key, long instance, TcpFlowAnalyzer flow, ReportVisitor v) {
        FlowSubject subject = new FlowSubject(key, instance, flow);
        Objects objects = new Objects(v);
        for (FlowField f : FlowFields.FLOW) {
            objects.enter(f.path());
            f.value().emit(f.name(), subject, v);
        }
        objects.enter("");
        for (FlowField.Side side : FlowField.Side.values()) {
            subject.side(side);
            v.beginObject(side.jsonName());
            for (FlowField f : FlowFields.DIRECTION) {
                objects.enter(f.path());
                f.value().emit(f.name(), subject, v);
            }
            objects.enter("");
            v.endObject();
        }
    }

    /** The report objects open at the current field: closes and opens objects as the paths require. */
    private static final class Objects {
        private final ReportVisitor v;
        private final List<String> open = new ArrayList<>();

        Objects(ReportVisitor v) {
            this.v = v;
        }

        /** Makes the objects of {@code path}'s parent the open ones ("" closes all). */
        void enter(String path) {
            String[] parts = path.isEmpty() ? new String[0] : path.split("\\.");
            int parents = Math.max(0, parts.length - 1);
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
