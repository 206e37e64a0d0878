package io.flowtrace.cli.output;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.flowtrace.core.net.FlowKey;
import io.flowtrace.core.tcp.TcpFlowAnalyzer;
import io.flowtrace.report.ReportJson;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;

/** Writes flow reports as JSON Lines: one object per flow, one line each (the fields: {@link ReportJson}). */
public final class JsonReportWriter implements AutoCloseable {
    private final JsonGenerator json;
    private final OutputStream out;

    public JsonReportWriter(OutputStream out) throws IOException {
        this.out = out;
        this.json = new JsonFactory().createGenerator(out);
        json.setRootValueSeparator(null); // JSON Lines: Jackson would put a space before every object after the first
        json.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
    }

    public void write(FlowKey key, long instance, TcpFlowAnalyzer flow) {
        try {
            json.writeStartObject();
            ReportJson.writeFields(key, instance, flow, json);
            json.writeEndObject();
            json.flush();
            out.write('\n');
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the report of " + key.canonical(), e);
        }
    }

    @Override
    public void close() throws IOException {
        json.close();
        out.flush();
    }
}
