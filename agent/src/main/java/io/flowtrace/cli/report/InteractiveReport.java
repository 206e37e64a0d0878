package io.flowtrace.cli.report;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.flowtrace.core.tcp.RetransmissionClass;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code analyze --report}: one self-contained HTML file (no network needed to open it) with, per
 * flow, a Stevens/tcptrace time-sequence graph (segments coloured by retransmission class, the ACK
 * line, the advertised-window line, SACK blocks), bytes in flight with the cwnd estimate per round,
 * and RTT per round, all on one time axis: drag to zoom, double-click to reset, zooming one zooms
 * the others, hover shows time and values. Drawn by uPlot (MIT, pinned webjar org.webjars.npm:uplot,
 * inlined with its licence), which stays fast at 10^5-10^6 points.
 */
public final class InteractiveReport {
    private static final String UPLOT = "META-INF/resources/webjars/uplot/1.6.30/";
    private static final String[] CLASS_NAMES = new String[RetransmissionClass.values().length];

    static {
        for (RetransmissionClass c : RetransmissionClass.values()) {
            CLASS_NAMES[c.ordinal()] = c.jsonName();
        }
    }

    private InteractiveReport() {}

    /** Writes the report of one capture's flows; {@code target} is a .html file, or a directory that gets index.html. */
    public static Path write(Path target, String captureName, List<FlowGraph> graphs) throws IOException {
        return write(target, "flowtrace report: " + captureName, "", List.of(Section.ofFlows(graphs)));
    }

    /**
     * Writes a report page of {@code sections} (the demo's: flows and charts from its sink tables);
     * {@code introHtml} is HTML written by flowtrace, put under the title as it is.
     */
    public static Path write(Path target, String title, String introHtml, List<Section> sections) throws IOException {
        Path file = target.toString().endsWith(".html") ? target : target.resolve("index.html");
        if (file.getParent() != null) {
            Files.createDirectories(file.getParent());
        }
        String html = template()
                .replace("/*UPLOT_CSS*/", resource(UPLOT + "dist/uPlot.min.css"))
                .replace("/*UPLOT_JS*/", resource(UPLOT + "dist/uPlot.iife.min.js"))
                .replace("UPLOT_LICENSE", escapeHtml(resource(UPLOT + "LICENSE")))
                .replace("PAGE_TITLE", escapeHtml(title))
                .replace("<!--INTRO-->", introHtml)
                .replace("/*REPORT_JSON*/", json(sections).replace("</", "<\\/"));
        Files.writeString(file, html, StandardCharsets.UTF_8);
        return file;
    }

    private static String json(List<Section> sections) {
        StringWriter w = new StringWriter();
        try (JsonGenerator g = new JsonFactory().createGenerator(w)) {
            g.writeStartArray();
            for (Section s : sections) {
                g.writeStartObject();
                g.writeStringField("heading", s.heading());
                g.writeStringField("note", s.noteHtml());
                g.writeArrayFieldStart("flows");
                for (FlowGraph f : s.flows()) {
                    writeFlow(g, f);
                }
                g.writeEndArray();
                g.writeArrayFieldStart("charts");
                for (Chart c : s.charts()) {
                    writeChart(g, c);
                }
                g.writeEndArray();
                g.writeEndObject();
            }
            g.writeEndArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return w.toString();
    }

    private static void writeChart(JsonGenerator g, Chart c) throws IOException {
        g.writeStartObject();
        g.writeStringField("title", c.title());
        g.writeStringField("x_label", c.xLabel());
        g.writeStringField("y_label", c.yLabel());
        g.writeBooleanField("counts", c.counts());
        if (c.categories() != null) {
            g.writeArrayFieldStart("categories");
            for (String label : c.categories()) {
                g.writeString(label);
            }
            g.writeEndArray();
        }
        g.writeArrayFieldStart("series");
        for (Chart.Series s : c.series()) {
            g.writeStartObject();
            g.writeStringField("label", s.label());
            g.writeStringField("colour", s.colour());
            g.writeStringField("style", s.style().name().toLowerCase(java.util.Locale.ROOT));
            numbers(g, "x", s.x());
            numbers(g, "y", s.y());
            if (s.shown() != null) {
                numbers(g, "shown", s.shown());
            }
            if (s.names() != null) {
                g.writeArrayFieldStart("names");
                for (String name : s.names()) {
                    g.writeString(name);
                }
                g.writeEndArray();
            }
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
    }

    private static void numbers(JsonGenerator g, String field, double[] values) throws IOException {
        g.writeArrayFieldStart(field);
        for (double v : values) {
            if (Double.isNaN(v)) {
                g.writeNull();
            } else if (v == Math.rint(v) && Math.abs(v) < 1e15) {
                g.writeNumber((long) v);
            } else {
                g.writeNumber(Math.round(v * 1e6) / 1e6);
            }
        }
        g.writeEndArray();
    }

    /** One flow's graphs: the per-packet series on one time axis, SACK blocks, rounds, throughput, the exit. */
    private static void writeFlow(JsonGenerator g, FlowGraph f) throws IOException {
        g.writeStartObject();
        g.writeStringField("title", f.flow.title());
        g.writeArrayFieldStart("classes");
        for (String c : CLASS_NAMES) {
            g.writeString(c);
        }
        g.writeEndArray();
        writePacketSeries(g, f);
        writeSacks(g, f);
        writeRounds(g, f);
        writeThroughput(g, f);
        if (!Double.isNaN(f.slowStartExitSeconds)) {
            g.writeNumberField("slow_start_exit", seconds(f, f.slowStartExitSeconds));
        }
        g.writeEndObject();
    }

    private static final int ORIGINAL = 0;
    private static final int ACK = 1 + CLASS_NAMES.length;
    private static final int RWND = ACK + 1;
    private static final int FLIGHT = ACK + 2;
    private static final int CWND = ACK + 3;
    /** The columns of the per-packet table: a segment's sequence number in its class's column, an ACK's in ack. */
    private static final String[] COLUMNS = columnNames();

    private static String[] columnNames() {
        String[] names = new String[CWND + 1];
        names[ORIGINAL] = "original";
        System.arraycopy(CLASS_NAMES, 0, names, 1, CLASS_NAMES.length);
        names[ACK] = "ack";
        names[RWND] = "rwnd";
        names[FLIGHT] = "flight";
        names[CWND] = "cwnd";
        return names;
    }

    /**
     * The segments and ACKs of a flow merged in time order into one x array (uPlot wants one), each
     * row a segment or an ACK, with the cwnd estimate of the round the row falls in.
     */
    private static void writePacketSeries(JsonGenerator g, FlowGraph f) throws IOException {
        List<double[]> rows = mergedRows(f);
        int n = rows.size();
        Double[][] cols = new Double[COLUMNS.length][n];
        int ri = 0;
        double cwnd = Double.NaN;
        g.writeArrayFieldStart("x");
        for (int i = 0; i < n; i++) {
            double[] r = rows.get(i);
            g.writeNumber(Math.round(seconds(f, r[0]) * 1e6) / 1e6);
            while (ri < f.rounds.size() && f.rounds.get(ri)[0] <= r[0]) {
                cwnd = f.rounds.get(ri++)[1];
            }
            if (r[1] == 0) {
                double[] s = f.segments.get((int) r[2]);
                int cls = (int) s[2];
                cols[cls < 0 ? ORIGINAL : 1 + cls][i] = s[1];
                cols[FLIGHT][i] = s[3];
            } else {
                double[] a = f.acks.get((int) r[2]);
                cols[ACK][i] = a[1];
                cols[RWND][i] = a[2];
            }
            cols[CWND][i] = Double.isNaN(cwnd) ? null : cwnd;
        }
        g.writeEndArray();
        g.writeObjectFieldStart("series");
        for (int c = 0; c < cols.length; c++) {
            g.writeArrayFieldStart(COLUMNS[c]);
            for (Double v : cols[c]) {
                if (v == null) {
                    g.writeNull();
                } else {
                    g.writeNumber(v.longValue());
                }
            }
            g.writeEndArray();
        }
        g.writeEndObject();
    }

    /** {t, 0 segment / 1 ack, index} in time order (a segment first when both have the same time). */
    private static List<double[]> mergedRows(FlowGraph f) {
        List<double[]> rows = new ArrayList<>();
        int si = 0;
        int ai = 0;
        while (si < f.segments.size() || ai < f.acks.size()) {
            boolean seg =
                    ai >= f.acks.size() || (si < f.segments.size() && f.segments.get(si)[0] <= f.acks.get(ai)[0]);
            rows.add(seg ? new double[] {f.segments.get(si)[0], 0, si++} : new double[] {f.acks.get(ai)[0], 1, ai++});
        }
        return rows;
    }

    private static void writeSacks(JsonGenerator g, FlowGraph f) throws IOException {
        g.writeArrayFieldStart("sack");
        for (double[] s : f.sacks) {
            g.writeStartArray();
            g.writeNumber(Math.round(seconds(f, s[0]) * 1e6) / 1e6);
            g.writeNumber((long) s[1]);
            g.writeNumber((long) s[2]);
            g.writeEndArray();
        }
        g.writeEndArray();
    }

    private static void writeRounds(JsonGenerator g, FlowGraph f) throws IOException {
        g.writeObjectFieldStart("rounds");
        g.writeArrayFieldStart("x");
        for (double[] r : f.rounds) {
            g.writeNumber(Math.round(seconds(f, r[0]) * 1e6) / 1e6);
        }
        g.writeEndArray();
        g.writeArrayFieldStart("rtt_ms");
        for (double[] r : f.rounds) {
            if (Double.isNaN(r[2])) {
                g.writeNull();
            } else {
                g.writeNumber(Math.round(r[2] * 1000) / 1000.0);
            }
        }
        g.writeEndArray();
        g.writeEndObject();
    }

    /** Bytes newly ACKed per interval (the page shows them as Mbit/s over the interval). */
    private static void writeThroughput(JsonGenerator g, FlowGraph f) throws IOException {
        FlowGraph.Throughput t = f.throughput();
        g.writeObjectFieldStart("throughput");
        g.writeNumberField("interval_s", Math.round(t.intervalNanos() / 1e3) / 1e6);
        g.writeArrayFieldStart("x");
        for (int i = 0; i < t.ackedBytes().length; i++) {
            g.writeNumber(Math.round(seconds(f, t.firstNanos() + i * (double) t.intervalNanos()) * 1e6) / 1e6);
        }
        g.writeEndArray();
        g.writeArrayFieldStart("bytes");
        for (long b : t.ackedBytes()) {
            g.writeNumber(b);
        }
        g.writeEndArray();
        g.writeEndObject();
    }

    private static double seconds(FlowGraph f, double nanos) {
        return (nanos - f.originNanos) / 1e9;
    }

    private static String template() throws IOException {
        return resource("io/flowtrace/cli/report/report.html");
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = InteractiveReport.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IOException("resource " + name + " is missing from the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static String escapeHtml(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
