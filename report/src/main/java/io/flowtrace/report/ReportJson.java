package io.flowtrace.report;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.io.SegmentedStringWriter;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.core.util.BufferRecycler;
import io.flowtrace.core.net.FlowKey;
import io.flowtrace.core.tcp.TcpFlowAnalyzer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.ConcurrentHashMap;

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
        return of(key, instance, flow, null);
    }

    /**
     * The object as {@link #of(FlowKey, long, TcpFlowAnalyzer)} writes it, from a walk that also
     * hands every field to {@code alongside} (when not null): one walk of the analyser for the text and
     * another output, e.g. the job's Avro record.
     */
    public static String of(FlowKey key, long instance, TcpFlowAnalyzer flow, ReportVisitor alongside) {
        // Jackson's segmented writer on its recycled buffers, as ObjectMapper.writeValueAsString does:
        // a StringWriter of 2 KiB grew by copying to hold a flow's object (Arrays.copyOf and the new
        // StringBuffer were 4 % of the job's task threads, docs/BENCHMARKS.md "Smoke profiles of the
        // flow function's emission").
        BufferRecycler buffers = JSON._getBufferRecycler();
        try (SegmentedStringWriter text = new SegmentedStringWriter(buffers)) {
            try (JsonGenerator json = JSON.createGenerator(text)) {
                json.writeStartObject();
                ReportVisitor writer = new Writer(json);
                FlowReport.visit(key, instance, flow, alongside == null ? writer : new TeeVisitor(alongside, writer));
                json.writeEndObject();
            }
            return text.getAndClear();
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot write the report of " + key.canonical() + " instance " + instance, e);
        } finally {
            buffers.releaseToPool();
        }
    }

    /** Writes the flow's fields into an object the caller has opened on {@code json}. */
    public static void writeFields(FlowKey key, long instance, TcpFlowAnalyzer flow, JsonGenerator json) {
        FlowReport.visit(key, instance, flow, new Writer(json));
    }

    /**
     * Field names as Jackson's pre-encoded strings: written from a String, each name's characters
     * were checked one by one for every field of every record (a fifth of {@code analyze --json}'s
     * time on short connections: docs/BENCHMARKS.md "The reader, the flow key and the JSON writer"). The report has a fixed
     * set of names, so the cache stays small.
     */
    private static final ConcurrentHashMap<String, SerializedString> NAMES = new ConcurrentHashMap<>();

    private static SerializedString encoded(String name) {
        SerializedString s = NAMES.get(name);
        return s != null ? s : NAMES.computeIfAbsent(name, SerializedString::new);
    }

    private record Writer(JsonGenerator json) implements ReportVisitor {
        @Override
        public void beginObject(String name) {
            try {
                json.writeFieldName(encoded(name));
                json.writeStartObject();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void endObject() {
            try {
                json.writeEndObject();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void string(String name, String value) {
            try {
                json.writeFieldName(encoded(name));
                json.writeString(value);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void integer(String name, long value) {
            try {
                json.writeFieldName(encoded(name));
                json.writeNumber(value);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void absent(String name) {
            try {
                json.writeFieldName(encoded(name));
                json.writeNull();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void decimal(String name, double value) {
            try {
                json.writeFieldName(encoded(name));
                if (Double.isNaN(value) || Double.isInfinite(value)) {
                    json.writeNull();
                } else {
                    json.writeNumber(Math.round(value * 1000.0) / 1000.0);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void bool(String name, boolean value) {
            try {
                json.writeFieldName(encoded(name));
                json.writeBoolean(value);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void integers(String name, long[] values, int count) {
            try {
                json.writeFieldName(encoded(name));
                json.writeStartArray();
                for (int i = 0; i < count; i++) {
                    json.writeNumber(values[i]);
                }
                json.writeEndArray();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
