package io.flowtrace.avro.mapping;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.flowtrace.core.net.FlowKey;
import io.flowtrace.core.report.FlowReport;
import io.flowtrace.core.report.ReportVisitor;
import io.flowtrace.core.tcp.TcpFlowAnalyzer;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;

/**
 * A flow's {@code flowtrace analyze --json} object: the one JSON writer of the report contract,
 * used by the CLI (JSON Lines) and by the job (the {@code report} jsonb column). Number rules: a
 * decimal is rounded to three places (nanosecond precision on microsecond fields) and NaN or
 * infinity is written as null.
 */
public final class ReportJson {
    private static final JsonFactory JSON = new JsonFactory();

    private ReportJson() {}

    public static String of(FlowKey key, long instance, TcpFlowAnalyzer flow) {
        StringWriter text = new StringWriter(2048);
        try (JsonGenerator json = JSON.createGenerator(text)) {
            json.writeStartObject();
            FlowReport.visit(key, instance, flow, new Writer(json));
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot write the report of " + key.canonical() + " instance " + instance, e);
        }
        return text.toString();
    }

    /** Writes the flow's fields into an object the caller has opened on {@code json}. */
    public static void writeFields(FlowKey key, long instance, TcpFlowAnalyzer flow, JsonGenerator json) {
        FlowReport.visit(key, instance, flow, new Writer(json));
    }

    private record Writer(JsonGenerator json) implements ReportVisitor {
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
            if (Double.isNaN(value) || Double.isInfinite(value)) {
                io(() -> json.writeNullField(name));
            } else {
                io(() -> json.writeNumberField(name, Math.round(value * 1000.0) / 1000.0));
            }
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
    }

    private interface IoAction {
        void run() throws IOException;
    }

    private static void io(IoAction action) {
        try {
            action.run();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
