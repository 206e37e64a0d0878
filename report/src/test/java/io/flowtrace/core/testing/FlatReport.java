package io.flowtrace.core.testing;

import io.flowtrace.report.ReportVisitor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Collects a flow report as "dotted.name" → value, for comparing two analyses of the same flow. */
public final class FlatReport implements ReportVisitor {
    public final Map<String, Object> fields = new LinkedHashMap<>();
    private final List<String> path = new ArrayList<>();

    private String name(String leaf) {
        return path.isEmpty() ? leaf : String.join(".", path) + "." + leaf;
    }

    @Override
    public void beginObject(String name) {
        path.add(name);
    }

    @Override
    public void endObject() {
        path.remove(path.size() - 1);
    }

    @Override
    public void string(String name, String value) {
        fields.put(name(name), value);
    }

    @Override
    public void integer(String name, long value) {
        fields.put(name(name), value);
    }

    @Override
    public void decimal(String name, double value) {
        fields.put(name(name), value);
    }

    @Override
    public void bool(String name, boolean value) {
        fields.put(name(name), value);
    }

    @Override
    public void integers(String name, long[] values, int count) {
        fields.put(name(name), Arrays.toString(Arrays.copyOf(values, count)));
    }
}
