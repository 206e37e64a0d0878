package io.flowtrace.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.flowtrace.core.report.ReportVisitor;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;

/** Writes flow reports as JSON Lines: one object per flow, one line each. */
public final class JsonReportWriter implements ReportVisitor, AutoCloseable {
    private final JsonGenerator json;
    private final OutputStream out;

    public JsonReportWriter(OutputStream out) throws IOException {
        this.out = out;
        this.json = new JsonFactory().createGenerator(out);
        json.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
    }

    public void beginFlow() {
        io(() -> json.writeStartObject());
    }

    public void endFlow() {
        io(() -> {
            json.writeEndObject();
            json.flush();
            out.write('\n');
        });
    }

    @Override
    public void beginObject(String name) {
        io(() -> json.writeObjectFieldStart(name));
    }

    @Override
    public void endObject() {
        io(json::writeEndObject);
    }

    @Override
    public void string(String name, String value) {
        io(() -> json.writeStringField(name, value));
    }

    @Override
    public void integer(String name, long value) {
        io(() -> json.writeNumberField(name, value));
    }

    @Override
    public void decimal(String name, double value) {
        io(() -> {
            if (Double.isNaN(value) || Double.isInfinite(value)) {
                json.writeNullField(name);
            } else {
                // three decimals: nanosecond precision for microsecond fields, and stable text
                json.writeNumberField(name, Math.round(value * 1000.0) / 1000.0);
            }
        });
    }

    @Override
    public void bool(String name, boolean value) {
        io(() -> json.writeBooleanField(name, value));
    }

    @Override
    public void integers(String name, long[] values, int count) {
        io(() -> {
            json.writeArrayFieldStart(name);
            for (int i = 0; i < count; i++) {
                json.writeNumber(values[i]);
            }
            json.writeEndArray();
        });
    }

    @Override
    public void close() throws IOException {
        json.close();
        out.flush();
    }

    private interface IoAction {
        void run() throws IOException;
    }

    private static void io(IoAction a) {
        try {
            a.run();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
