package io.flowtrace.demo;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.flowtrace.cli.console.PrivateOutput;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Iterator;
import java.util.List;
import javax.sql.DataSource;

/**
 * {@code --export-flows FILE}: the final {@code flow_summary.report} rows, read back from PostgreSQL,
 * as JSON Lines in exactly the {@code flowtrace analyze --json} format: the field order and number
 * forms of the one report writer (report's ReportJson, which the job also used to fill the column),
 * restored with {@link ReportShape} because jsonb keeps neither. One line per flow, ordered by
 * vantage, first packet, client, server (analyze writes flows in the order they end).
 */
final class FlowExport {
    private static final ObjectMapper JSON = new ObjectMapper();

    private FlowExport() {}

    /**
     * Writes the file (through {@link PrivateOutput}: no write through another user's directory or
     * link, a temporary file renamed at the end); returns the number of flows written.
     */
    static int write(DataSource db, Path file) throws Exception {
        int[] written = new int[1];
        PrivateOutput.write(file, raw -> written[0] = rows(db, raw));
        return written[0];
    }

    private static int rows(DataSource db, OutputStream raw) throws Exception {
        int n = 0;
        try (Connection c = db.getConnection();
                Statement s = c.createStatement();
                ResultSet rows = s.executeQuery("SELECT report::text, final FROM flow_summary"
                        + " ORDER BY vantage, first_seen, client, server, instance");
                OutputStream out = new BufferedOutputStream(raw, 1 << 16);
                JsonGenerator json = new JsonFactory().createGenerator(out)) {
            json.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
            json.setRootValueSeparator(null); // one object per line, nothing before it
            while (rows.next()) {
                if (!rows.getBoolean(2)) {
                    throw new IllegalStateException(
                            "flow_summary holds a row that is not final after the job ended: " + rows.getString(1));
                }
                JsonNode report = JSON.readTree(rows.getString(1));
                json.writeStartObject();
                writeFields(report, ReportShape.FIELDS, json, "");
                json.writeEndObject();
                json.flush();
                out.write('\n');
                n++;
            }
        }
        return n;
    }

    private static void writeFields(JsonNode object, List<ReportShape.Field> fields, JsonGenerator json, String path)
            throws IOException {
        if (object == null || !object.isObject()) {
            throw new IllegalStateException("report field " + path + " is not an object");
        }
        if (object.size() != fields.size()) {
            throw new IllegalStateException("report object " + (path.isEmpty() ? "(root)" : path) + " has "
                    + object.size() + " fields, the analyze --json contract " + fields.size()
                    + ": the row was written by another version");
        }
        for (ReportShape.Field f : fields) {
            JsonNode v = object.get(f.name());
            String at = path.isEmpty() ? f.name() : path + "." + f.name();
            if (v == null) {
                throw new IllegalStateException("report lacks field " + at);
            }
            switch (f.kind()) {
                case OBJECT -> {
                    json.writeObjectFieldStart(f.name());
                    writeFields(v, f.children(), json, at);
                    json.writeEndObject();
                }
                case STRING -> json.writeStringField(f.name(), v.asText());
                case INTEGER, DECIMAL -> {
                    // "none" is null for integers as for decimals (analyze --json, docs/metrics.md)
                    if (v.isNull()) {
                        json.writeNullField(f.name());
                    } else if (f.kind() == ReportShape.Kind.INTEGER) {
                        json.writeNumberField(f.name(), v.longValue());
                    } else {
                        json.writeNumberField(f.name(), v.doubleValue());
                    }
                }
                case BOOL -> json.writeBooleanField(f.name(), v.booleanValue());
                case INTEGERS -> {
                    json.writeArrayFieldStart(f.name());
                    for (Iterator<JsonNode> it = v.elements(); it.hasNext(); ) {
                        json.writeNumber(it.next().longValue());
                    }
                    json.writeEndArray();
                }
            }
        }
    }
}
