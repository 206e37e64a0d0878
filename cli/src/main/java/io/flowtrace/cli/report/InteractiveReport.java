package io.flowtrace.cli.report;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import io.flowtrace.cli.console.PrivateOutput;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

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

    private InteractiveReport() {}

    /** Writes the report of one capture's flows; {@code target} is a .html file, or a directory that gets index.html. */
    public static Path write(Path target, String captureName, List<FlowGraph> graphs) throws IOException {
        return write(target, "flowtrace report: " + captureName, "", List.of(Section.ofFlows(graphs)));
    }

    /**
     * Refuses, before any work, a {@code target} that {@link #write} could not write safely (another
     * user's directory or link on the way); an {@link IllegalArgumentException} starting "--report".
     */
    public static void checkTarget(Path target) {
        try {
            PrivateOutput.check(file(target));
        } catch (PrivateOutput.RefusedException e) {
            throw new IllegalArgumentException("--report " + e.getMessage(), e);
        } catch (IOException e) {
            // not another user's doing (a file where a directory should be, no permission): the write
            // says why in one line after the analysis, exit 1 (README "Exit codes")
        }
    }

    private static Path file(Path target) {
        return target.toString().endsWith(".html") ? target : target.resolve("index.html");
    }

    /**
     * Writes a report page of {@code sections} (the demo's: flows and charts from its sink tables);
     * {@code introHtml} is HTML written by flowtrace, put under the title as it is.
     */
    public static Path write(Path target, String title, String introHtml, List<Section> sections) throws IOException {
        Path file = file(target);
        String html = template()
                .replace("/*UPLOT_CSS*/", resource(UPLOT + "dist/uPlot.min.css"))
                .replace("/*UPLOT_JS*/", resource(UPLOT + "dist/uPlot.iife.min.js"))
                .replace("UPLOT_LICENSE", escapeHtml(resource(UPLOT + "LICENSE")))
                .replace("PAGE_TITLE", escapeHtml(title))
                .replace("<!--INTRO-->", introHtml);
        int data = html.indexOf("/*REPORT_JSON*/");
        // streamed: the data of a flow of 10^6 packets is ≈ 15 MB, not copied through strings;
        // PrivateOutput: no write through another user's directory or link (docs/reliability.md "Security")
        return PrivateOutput.write(file, out -> {
            Writer w = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8));
            w.write(html, 0, data);
            json(sections, w);
            w.write(html, data + "/*REPORT_JSON*/".length(), html.length() - data - "/*REPORT_JSON*/".length());
            w.flush();
        });
    }

    /** No "<" of a string reaches the page as it is (it is written as its JSON escape), so no "</script>" ends the data. */
    private static final CharacterEscapes NO_TAGS = new CharacterEscapes() {
        private final int[] escapes = standardAsciiEscapesForJSON();

        {
            escapes['<'] = CharacterEscapes.ESCAPE_STANDARD;
        }

        @Override
        public int[] getEscapeCodesForAscii() {
            return escapes;
        }

        @Override
        public SerializableString getEscapeSequence(int ch) {
            return null;
        }
    };

    private static void json(List<Section> sections, Writer w) throws IOException {
        try (JsonGenerator g = new JsonFactory().createGenerator(w)) {
            g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
            g.setCharacterEscapes(NO_TAGS);
            g.writeStartArray();
            for (Section s : sections) {
                g.writeStartObject();
                g.writeStringField("heading", s.heading());
                g.writeStringField("note", s.noteHtml());
                g.writeArrayFieldStart("flows");
                for (FlowGraph f : s.flows()) {
                    FlowGraphJson.write(g, f);
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
        }
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
            g.writeStringField("style", s.style().name().toLowerCase(Locale.ROOT));
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
