package io.flowtrace.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.flowtrace.core.report.ServiceSetupTable;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.List;

/** Prints {@code analyze --services}: a table, or one JSON object per service with --json. */
final class ServiceTableWriter {
    private ServiceTableWriter() {
    }

    static void write(List<ServiceSetupTable.Row> rows, boolean json, PrintStream out) {
        if (json) {
            try {
                for (ServiceSetupTable.Row r : rows) {
                    JsonGenerator g = new JsonFactory().createGenerator(out);
                    g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
                    g.writeStartObject();
                    g.writeStringField("service", r.service());
                    g.writeNumberField("flows", r.flows());
                    g.writeNumberField("established", r.established());
                    number(g, "setup_mean_us", r.meanUs());
                    number(g, "setup_sd_us", r.sdUs());
                    number(g, "setup_p50_us", r.p50Us());
                    number(g, "setup_p90_us", r.p90Us());
                    number(g, "setup_p99_us", r.p99Us());
                    g.writeNumberField("syn_retransmits", r.synRetransmits());
                    g.writeNumberField("flows_with_syn_retransmits", r.flowsWithSynRetransmits());
                    g.writeNumberField("synchronised_retries", r.synchronisedRetries());
                    g.writeEndObject();
                    g.flush();
                    out.println();
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return;
        }
        out.printf("%-28s %7s %7s %12s %12s %12s %12s %12s %8s %8s %8s%n", "service", "flows", "estab",
                "mean ms", "sd ms", "p50 ms", "p90 ms", "p99 ms", "SYN rtx", "flows", "sync");
        for (ServiceSetupTable.Row r : rows) {
            out.printf("%-28s %7d %7d %12.3f %12.3f %12.3f %12.3f %12.3f %8d %8d %8d%n", r.service(), r.flows(),
                    r.established(), r.meanUs() / 1000, r.sdUs() / 1000, r.p50Us() / 1000, r.p90Us() / 1000,
                    r.p99Us() / 1000, r.synRetransmits(), r.flowsWithSynRetransmits(), r.synchronisedRetries());
        }
    }

    private static void number(JsonGenerator g, String name, double v) throws IOException {
        if (Double.isNaN(v)) {
            g.writeNullField(name);
        } else {
            g.writeNumberField(name, Math.round(v * 1000.0) / 1000.0);
        }
    }
}
