package io.flowtrace.cli.output;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.flowtrace.core.report.ServiceSetupTable;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * Prints {@code analyze --services}: a table, or one JSON object per service with --json. Connections
 * are counted once per interface they were seen on: when the rows come from more than one interface
 * (a pcapng of several) each service has a row per interface, with an {@code interface} column (an
 * {@code "interface"} field in JSON; {@link InterfaceColumn} decides, as for the default table); otherwise
 * the output is as it always was.
 */
public final class ServiceTableWriter {
    private ServiceTableWriter() {}

    public static void write(List<ServiceSetupTable.Row> rows, boolean json, PrintStream out) {
        InterfaceColumn interfaces = new InterfaceColumn();
        for (ServiceSetupTable.Row r : rows) {
            interfaces.seen(r.iface());
        }
        boolean byInterface = interfaces.shown();
        if (json) {
            writeJson(rows, byInterface, out);
        } else {
            writeTable(rows, byInterface, out);
        }
    }

    /** One JSON object per service (and interface) per line; times in µs, null where no flow was established. */
    private static void writeJson(List<ServiceSetupTable.Row> rows, boolean byInterface, PrintStream out) {
        try {
            for (ServiceSetupTable.Row r : rows) {
                JsonGenerator g = new JsonFactory().createGenerator(out);
                g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
                g.writeStartObject();
                g.writeStringField("service", r.service());
                if (byInterface) {
                    g.writeStringField("interface", r.iface());
                }
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
    }

    /** A header saying what each column is, a row per service with units, and the legend line. */
    private static void writeTable(List<ServiceSetupTable.Row> rows, boolean byInterface, PrintStream out) {
        String[] header = {
            "service (server)",
            "interface",
            "flows",
            "established",
            "setup mean",
            "setup sd",
            "setup p50",
            "setup p90",
            "setup p99",
            "SYN retransmits",
            "flows with SYN rtx",
            "synchronised retries"
        };
        String format =
                "%-28s " + (byInterface ? "%-9s " : "%s") + "%6s %11s %10s %10s %10s %10s %10s %15s %18s %20s%n";
        if (!byInterface) {
            header[1] = "";
        }
        out.printf(format, (Object[]) header);
        for (ServiceSetupTable.Row r : rows) {
            out.printf(
                    format,
                    r.service(),
                    byInterface ? r.iface() : "",
                    Units.count(r.flows()),
                    Units.count(r.established()),
                    Units.micros(r.meanUs()),
                    Units.micros(r.sdUs()),
                    Units.micros(r.p50Us()),
                    Units.micros(r.p90Us()),
                    Units.micros(r.p99Us()),
                    Units.count(r.synRetransmits()),
                    Units.count(r.flowsWithSynRetransmits()),
                    Units.count(r.synchronisedRetries()));
        }
        out.println(
                "(setup: first SYN to the client ACK of the SYN-ACK, over established flows; synchronised retries: SYN"
                        + " retransmissions within " + ServiceSetupTable.SYNCHRONISED_NANOS / 1_000_000
                        + " ms of another flow's"
                        + (byInterface
                                ? "; a row per service and capture interface: a connection seen on two interfaces"
                                        + " counts once at each"
                                : "")
                        + ")");
    }

    private static void number(JsonGenerator g, String name, double v) throws IOException {
        if (Double.isNaN(v)) {
            g.writeNullField(name);
        } else {
            g.writeNumberField(name, Math.round(v * 1000.0) / 1000.0);
        }
    }
}
