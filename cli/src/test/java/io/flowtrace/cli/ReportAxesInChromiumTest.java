package io.flowtrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.flowtrace.cli.report.Chart;
import io.flowtrace.cli.report.InteractiveReport;
import io.flowtrace.cli.report.Section;
import io.flowtrace.core.testing.TestData;
import io.flowtrace.testkit.HeadlessChromium;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every chart type of the report in a real headless Chromium, read back from what uPlot drew: each
 * axis' tick labels (its formatted values, their canvas positions, their widths measured with the
 * axis' own font) must not repeat, must not overlap, must leave the y axis' title its room, and an x
 * axis must have at least two labels. At overview, and after zooming each flow to 0.7 ms (sub-
 * millisecond ticks: uPlot's own labels printed 0.0005 s steps as {@code 0.001 0.001 0.002}) and its
 * sequence axis to a 3,000-byte range deep in the flow (8-digit labels). On a lossy bulk flow
 * (cubic-loss), a receive-window-limited flow (rwnd-limited), 240 short connections (short-conns),
 * and the demo's chart kinds: stacked bars over the demo's 12 setup-time bins and over 40 time
 * buckets, and an x-y chart over milliseconds.
 */
class ReportAxesInChromiumTest {
    @TempDir
    static Path tmp;

    private static HeadlessChromium chromium;

    /** The checks, then the zoom, then the checks again; problems as text, so a failure says which label. */
    /** The checks, then the zoom, then the checks again; problems as text, so a failure says which label. */
    private static final String PROBE = HeadlessChromium.stepsProbe("""
            function check(when) {
              window.flowtraceCharts.forEach(function (u, ci) {
                var ctx = u.ctx, pr = window.devicePixelRatio || 1;
                u.axes.forEach(function (a, ai) {
                  if (!a.show) { return; }
                  var t = u.root.querySelector(".u-title");
                  var name = when + " chart " + ci + " '" + (t ? t.textContent.slice(0, 40) : "") + "' axis '" + (a.label || ai) + "'";
                  // uPlot found no increment whose labels fit: it draws none
                  if (!a._values) { r.problems.push(name + ": no labels drawn"); return; }
                  var labels = [];
                  ctx.save();
                  ctx.font = a.font[0];
                  for (var i = 0; i < a._values.length; i++) {
                    var v = a._values[i];
                    if (v == null || v === "") { continue; }
                    labels.push({ text: String(v), at: u.valToPos(a._splits[i], a.scale, true),
                      w: ctx.measureText(String(v)).width });
                  }
                  ctx.restore();
                  r.checked++;
                  var seen = {};
                  labels.forEach(function (l) {
                    if (seen[l.text]) { r.problems.push(name + ": label " + l.text + " repeated"); }
                    seen[l.text] = true;
                  });
                  labels.sort(function (p, q) { return p.at - q.at; });
                  for (var k = 1; k < labels.length; k++) {
                    var gap = Math.abs(labels[k].at - labels[k - 1].at);
                    var need = ai === 0 ? (labels[k].w + labels[k - 1].w) / 2 : a.font[1];
                    if (gap < need) {
                      r.problems.push(name + ": " + labels[k - 1].text + " and " + labels[k].text + " overlap");
                    }
                  }
                  if (ai === 0 && labels.length < 2) { r.problems.push(name + ": " + labels.length + " x labels"); }
                  if (ai === 1) {
                    var widest = 0;
                    labels.forEach(function (l) { widest = Math.max(widest, l.w / pr); });
                    var room = a._size - a.ticks.size - a.gap;
                    if (widest > room) {
                      r.problems.push(name + ": labels " + widest.toFixed(1) + " px wide in " + room + " px: under the title");
                    }
                  }
                });
              });
            }
            r.checked = 0;
            r.problems = [];
            r.charts = window.flowtraceCharts.length;
            check("overview");
            (window.flowtraceTimeSequence || []).forEach(function (u) {
              var x0 = u.scales.x.min, x1 = u.scales.x.max, y0 = u.scales.y.min, y1 = u.scales.y.max;
              var from = x0 + (x1 - x0) * 0.3, at = y0 + (y1 - y0) * 0.6;
              u.setScale("x", { min: from, max: from + 0.0007 });
              u.setScale("y", { min: at, max: at + 3000 });
            });
            // uPlot redraws after the task that set the scales: the checks a step later
            steps.push(function () {}, function () {
              if ((window.flowtraceTimeSequence || []).length) { check("zoomed"); }
            });
            """);

    @BeforeAll
    static void browser() {
        Optional<HeadlessChromium> found = HeadlessChromium.find();
        Assumptions.assumeTrue(
                found.isPresent(), "chromium is not installed (apt-get install chromium): browser check skipped");
        chromium = found.get();
    }

    private static JsonNode analyzeReport(String capture, String name) throws Exception {
        Path report = tmp.resolve(name + ".html");
        FlowtraceProcess.Result r = FlowtraceProcess.run(
                "analyze",
                "-q",
                "--report",
                report.toString(),
                "--top",
                "3",
                TestData.file(capture).toString());
        assertThat(r.exit()).as(r.stderr()).isZero();
        return probe(report);
    }

    private static JsonNode probe(Path page) throws Exception {
        JsonNode p = chromium.probe(page, tmp, PROBE);
        assertThat(p).as("the probe ran on %s", page).isNotNull();
        assertThat(p.get("errors")).as("errors in the page").isEmpty();
        return p;
    }

    private static void readable(JsonNode p, int charts) {
        assertThat(p.get("charts").asInt()).as("charts").isEqualTo(charts);
        // every chart has an x and a y axis, checked at overview (and the flows' again zoomed)
        assertThat(p.get("checked").asInt()).as("axes checked").isGreaterThanOrEqualTo(2 * charts);
        List<String> problems = new ArrayList<>();
        p.get("problems").forEach(n -> problems.add(n.asText()));
        assertThat(problems).as("tick label problems").isEmpty();
    }

    @Test
    void lossyBulkFlowAxesReadAtOverviewAndZoomed() throws Exception {
        // cubic-loss: 2 connections (tcptrace); each has a time-sequence, flight, throughput and RTT chart
        // for the direction that sends data, at most 2 directions x 4 charts
        JsonNode p = analyzeReport("tcp/cubic-loss.sender.pcap.gz", "cubic-loss");
        assertThat(p.get("charts").asInt()).isPositive();
        readable(p, p.get("charts").asInt());
    }

    @Test
    void receiveWindowLimitedFlowAxesRead() throws Exception {
        JsonNode p = analyzeReport("tcp/rwnd-limited.sender.pcap.gz", "rwnd-limited");
        assertThat(p.get("charts").asInt()).isPositive();
        readable(p, p.get("charts").asInt());
    }

    @Test
    void shortConnectionsAxesRead() throws Exception {
        JsonNode p = analyzeReport("tcp/short-conns.sender.pcap.gz", "short-conns");
        assertThat(p.get("charts").asInt()).isPositive();
        readable(p, p.get("charts").asInt());
    }

    /** The demo report's chart kinds (demo's HtmlReport builds them from PostgreSQL rows the same way). */
    @Test
    void barChartsHistogramsAndMillisecondAxesRead() throws Exception {
        // the demo's setup-time bins (demo/.../HtmlReport.SETUP_LABELS)
        List<String> setupBins = List.of(
                "<0.1ms", "<0.3ms", "<1ms", "<3ms", "<10ms", "<30ms", "<0.1s", "<0.3s", "<1s", "<3s", "<10s", "≥10s");
        double[][] setup = new double[2][12];
        for (int b = 0; b < 12; b++) {
            setup[0][b] = 3 * b + 1;
            setup[1][b] = b % 3;
        }
        // retransmissions over time: 40 buckets of 0.025 s, labelled as the demo labels them ("%.3f")
        List<String> buckets = new ArrayList<>();
        double[][] overTime = new double[2][40];
        for (int b = 0; b < 40; b++) {
            buckets.add(String.format(java.util.Locale.ROOT, "%.3f", b * 0.025));
            overTime[0][b] = b % 7;
            overTime[1][b] = 12_345_678 * (b % 2);
        }
        // an x-y chart over 0-4 ms (RTT against time, in seconds)
        double[] x = new double[50];
        double[] y = new double[50];
        for (int i = 0; i < 50; i++) {
            x[i] = i * 0.00008;
            y[i] = 10_000_000 + 1_000 * i;
        }
        List<Chart> charts = List.of(
                Chart.stackedBars(
                        "setup",
                        "setup time",
                        "connections",
                        setupBins,
                        List.of("no SYN retransmission", "SYN retransmitted"),
                        List.of("#1f77b4", "#d62728"),
                        setup),
                Chart.stackedBars(
                        "over time",
                        "seconds since the first retransmission (bucket start)",
                        "retransmissions",
                        buckets,
                        List.of("fast", "rto"),
                        List.of("#ff7f0e", "#d62728"),
                        overTime),
                Chart.xy(
                        "ms",
                        "seconds",
                        "bytes",
                        List.of(new Chart.Series("bytes", "#1f77b4", Chart.Style.POINTS, x, y))));
        Path page = InteractiveReport.write(
                tmp.resolve("charts.html"), "charts", "", List.of(new Section("charts", null, List.of(), charts)));
        readable(probe(page), 3);
    }
}
