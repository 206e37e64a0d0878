package io.flowtrace.demo;

import io.flowtrace.core.net.Endpoint;
import io.flowtrace.core.net.FlowKey;
import io.flowtrace.core.net.VantagePoint;
import io.flowtrace.core.tcp.AnalyzerConfig;
import io.flowtrace.core.tcp.TcpFlowAnalyzer;
import io.flowtrace.report.FlowReport;
import io.flowtrace.report.ReportVisitor;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * The field order and field kinds of the {@code analyze --json} object, taken from core's
 * {@link FlowReport} walk itself (over an empty flow: the walk visits every field whatever the
 * values). PostgreSQL's jsonb keeps neither key order nor the difference between 1.5E7 and
 * 15000000, so re-emitting a stored report exactly needs both.
 */
final class ReportShape {
    enum Kind {
        OBJECT,
        STRING,
        INTEGER,
        DECIMAL,
        BOOL,
        INTEGERS
    }

    record Field(String name, Kind kind, List<Field> children) {}

    static final List<Field> FIELDS = build();

    private ReportShape() {}

    private static List<Field> build() {
        Endpoint a = new Endpoint(new byte[] {10, 0, 0, 1}, 40000);
        Endpoint b = new Endpoint(new byte[] {10, 0, 0, 2}, 443);
        TcpFlowAnalyzer empty = new TcpFlowAnalyzer(a, b, false, AnalyzerConfig.DEFAULTS);
        List<Field> root = new ArrayList<>();
        Deque<List<Field>> open = new ArrayDeque<>();
        open.push(root);
        FlowReport.visit(FlowKey.of(new VantagePoint("shape", "if0"), a, b), 0, empty, new ReportVisitor() {
            @Override
            public void beginObject(String name) {
                List<Field> children = new ArrayList<>();
                open.peek().add(new Field(name, Kind.OBJECT, children));
                open.push(children);
            }

            @Override
            public void endObject() {
                open.pop();
            }

            @Override
            public void string(String name, String value) {
                open.peek().add(new Field(name, Kind.STRING, List.of()));
            }

            @Override
            public void integer(String name, long value) {
                open.peek().add(new Field(name, Kind.INTEGER, List.of()));
            }

            @Override
            public void decimal(String name, double value) {
                open.peek().add(new Field(name, Kind.DECIMAL, List.of()));
            }

            @Override
            public void bool(String name, boolean value) {
                open.peek().add(new Field(name, Kind.BOOL, List.of()));
            }

            @Override
            public void integers(String name, long[] values, int count) {
                open.peek().add(new Field(name, Kind.INTEGERS, List.of()));
            }
        });
        return List.copyOf(root);
    }
}
