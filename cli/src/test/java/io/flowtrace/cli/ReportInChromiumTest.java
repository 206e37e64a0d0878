package io.flowtrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.flowtrace.cli.report.Chart;
import io.flowtrace.cli.report.InteractiveReport;
import io.flowtrace.cli.report.Section;
import io.flowtrace.core.testing.LongFlow;
import io.flowtrace.core.testing.TestData;
import io.flowtrace.testkit.HeadlessChromium;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code flowtrace analyze --report} (the real process) opened in a real headless Chromium
 * (Debian's chromium, installed by .ci/run): the page is one self-contained file, loads without
 * console errors, uPlot draws every chart (non-blank canvases), a mouse drag across the
 * time-sequence graph zooms its x range and the flow's other charts follow, and the screenshot is
 * not blank. Skips with the reason only when no chromium is installed.
 */
class ReportInChromiumTest {

    @Test
    void reportLoadsDrawsZoomsAndIsNotBlank(@TempDir Path tmp) throws Exception {
        Path report = tmp.resolve("report.html");
        FlowtraceProcess.Result r = FlowtraceProcess.run(
                "analyze",
                "-q",
                "--report",
                report.toString(),
                "--top",
                "2",
                TestData.file("tcp/cubic-loss.sender.pcap.gz").toString());
        assertThat(r.exit()).as(r.stderr()).isZero();
        String html = Files.readString(report, StandardCharsets.UTF_8);
        // One self-contained file: no script, style or image to fetch; uPlot's licence travels with it.
        assertThat(html)
                .doesNotContainPattern("<script[^>]+src=")
                .doesNotContain("<link")
                .doesNotContain("<img")
                .contains("id=\"uplot-license\"")
                .contains("The MIT License");

        Optional<HeadlessChromium> chromium = HeadlessChromium.find();
        Assumptions.assumeTrue(
                chromium.isPresent(), "chromium is not installed (apt-get install chromium): browser check skipped");
        HeadlessChromium.Screenshot shot = chromium.get().screenshot(report, tmp, 1300, 1600);
        assertThat(shot.status())
                .as("chromium --screenshot:%n%s", shot.stderr())
                .isZero();
        assertThat(shot.consoleMessages())
                .as("console messages while loading the report")
                .isEmpty();
        assertThat(shot.image()).isNotNull();
        assertThat(shot.distinctColours())
                .as("distinct colours in the screenshot (a blank page has one)")
                .isGreaterThan(20);

        JsonNode p = chromium.get().probe(report, tmp);
        assertThat(p).as("the probe ran").isNotNull();
        assertThat(p.get("errors")).as("errors in the page").isEmpty();
        // two flows (testdata/tcp/cubic-loss.sender.tcptrace.txt), four charts each: time-sequence, flight and
        // cwnd, throughput, RTT
        assertThat(p.get("charts").asInt()).isEqualTo(8);
        assertThat(p.get("drawn").asInt()).as("charts with ink on their canvas").isEqualTo(8);
        assertDragZoomedEveryChartOfTheFlow(p);
    }

    /** The default probe's mouse drag across the first chart narrowed its x range, and the flow's other charts followed. */
    private static void assertDragZoomedEveryChartOfTheFlow(JsonNode p) {
        double min0 = p.get("before").get(0).asDouble();
        double max0 = p.get("before").get(1).asDouble();
        double min1 = p.get("after").get(0).asDouble();
        double max1 = p.get("after").get(1).asDouble();
        assertThat(max1 - min1)
                .as("drag-zoom narrows the time range")
                .isLessThan((max0 - min0) * 0.5)
                .isPositive();
        assertThat(min1).isGreaterThan(min0);
        assertThat(p.get("otherAfter").get(0).asDouble())
                .as("the flow's other charts follow")
                .isEqualTo(min1);
        assertThat(p.get("otherAfter").get(1).asDouble()).isEqualTo(max1);
    }

    /**
     * A flow of 10^5 packets (testdata/tcp/cubic-loss.sender.pcap.gz's connection repeated by
     * core's testing LongFlow): the page holds every one of its segments and ACKs, loads without
     * errors, draws every chart and zooms. How fast is measured by bench/report-scale.sh
     * (docs/BENCHMARKS.md, "Report"), not here.
     */
    @Test
    void aFlowOfAHundredThousandPacketsLoadsWithEveryPointDrawsAndZooms(@TempDir Path tmp) throws Exception {
        Optional<HeadlessChromium> chromium = HeadlessChromium.find();
        Assumptions.assumeTrue(
                chromium.isPresent(), "chromium is not installed (apt-get install chromium): browser check skipped");
        Path capture = tmp.resolve("long.pcap");
        long packets = LongFlow.write(TestData.file("tcp/cubic-loss.sender.pcap.gz"), capture, 100_000, false);
        Path report = tmp.resolve("long.html");
        FlowtraceProcess.Result r =
                FlowtraceProcess.run("analyze", "-q", "--report", report.toString(), capture.toString());
        assertThat(r.exit()).as(r.stderr()).isZero();

        JsonNode p = chromium.get().probe(report, tmp);
        assertThat(p).as("the probe ran").isNotNull();
        assertThat(p.get("errors")).as("errors in the page").isEmpty();
        // one flow: time-sequence, flight and cwnd, throughput, RTT
        assertThat(p.get("charts").asInt()).isEqualTo(4);
        assertThat(p.get("drawn").asInt()).as("charts with ink on their canvas").isEqualTo(4);
        // a row per data segment and per ACK, nothing thinned: every packet but the sender's without payload and the
        // receiver's without an ACK (tshark on this capture: 20 and 8 of 100,845; LongFlow repeats them per copy)
        assertThat(p.get("rows").asLong())
                .as("rows of the time-sequence graph of %d packets", packets)
                .isBetween(packets - packets / 1000, packets);
        assertDragZoomedEveryChartOfTheFlow(p);
    }

    /**
     * After load: hovers a data segment of the first flow's time-sequence graph (one whose time no other
     * row shares), reads the legend and the crosshair, then zooms and double-clicks to reset.
     */
    private static final String HOVER_PROBE = """
            <script>
            window.addEventListener("load", function () {
              var r = { errors: window.__errors };
              function done() {
                var pre = document.createElement("pre");
                pre.id = "probe-result";
                pre.textContent = JSON.stringify(r);
                document.body.appendChild(pre);
              }
              try {
                var u = window.flowtraceCharts[0], x = u.data[0], orig = u.data[1], idx = -1;
                for (var i = Math.floor(orig.length / 2); i < orig.length - 1 && idx < 0; i++) {
                  if (orig[i] != null && x[i - 1] !== x[i] && x[i + 1] !== x[i]) { idx = i; }
                }
                r.time = x[idx];
                r.seq = orig[idx];
                u.setCursor({ left: u.valToPos(x[idx], "x"), top: u.valToPos(orig[idx], "y") });
                setTimeout(function () {
                  r.cursorIdx = u.cursor.idx;
                  r.idx = idx;
                  r.legend = Array.prototype.map.call(u.root.querySelectorAll(".u-legend .u-series"), function (row) {
                    var l = row.querySelector(".u-label"), v = row.querySelector(".u-value");
                    return [l ? l.textContent : "", v ? v.textContent : ""];
                  });
                  var cx = u.root.querySelector(".u-cursor-x"), cy = u.root.querySelector(".u-cursor-y");
                  r.strokes = u.series.slice(1).map(function (s) {
                    return [s.label, typeof s.stroke === "function" ? s.stroke(u, 1) : s.stroke];
                  });
                  r.crosshair = !!cx && !!cy && getComputedStyle(cx).display !== "none"
                    && getComputedStyle(cy).display !== "none";
                  r.legendBelowPlot = u.root.querySelector(".u-legend").getBoundingClientRect().top
                    >= u.over.getBoundingClientRect().bottom;
                  r.full = [u.scales.x.min, u.scales.x.max];
                  var w = r.full[1] - r.full[0];
                  // uPlot commits a new scale in a microtask: read it after the next turn
                  u.setScale("x", { min: r.full[0] + w * 0.4, max: r.full[0] + w * 0.5 });
                  setTimeout(function () {
                    r.zoomed = [u.scales.x.min, u.scales.x.max];
                    u.over.dispatchEvent(new MouseEvent("dblclick", { bubbles: true, cancelable: true, view: window }));
                    setTimeout(function () { r.reset = [u.scales.x.min, u.scales.x.max]; done(); }, 50);
                  }, 50);
                }, 50);
              } catch (e) {
                r.errors.push("probe: " + e);
                done();
              }
            });
            </script>
            """;

    @Test
    void hoverShowsFlowTimeAndSequenceOnACrosshairWithTheLegendOutsideThePlotAndDoubleClickResets(@TempDir Path tmp)
            throws Exception {
        Optional<HeadlessChromium> chromium = HeadlessChromium.find();
        Assumptions.assumeTrue(
                chromium.isPresent(), "chromium is not installed (apt-get install chromium): browser check skipped");
        Path report = tmp.resolve("report.html");
        FlowtraceProcess.Result r = FlowtraceProcess.run(
                "analyze",
                "-q",
                "--report",
                report.toString(),
                "--flow",
                "10.77.1.2:35534-10.77.2.2:5201",
                TestData.file("tcp/cubic-loss.sender.pcap.gz").toString());
        assertThat(r.exit()).as(r.stderr()).isZero();

        JsonNode p = chromium.get().probe(report, tmp, HOVER_PROBE);
        assertThat(p).as("the probe ran").isNotNull();
        assertThat(p.get("errors")).as("errors in the page").isEmpty();
        assertThat(p.get("cursorIdx").asInt())
                .as("the hovered row")
                .isEqualTo(p.get("idx").asInt());
        JsonNode legend = p.get("legend");
        assertThat(legend.get(0).get(0).asText()).isEqualTo("flow 1, time");
        assertThat(legend.get(0).get(1).asText())
                .isEqualTo(String.format(
                        java.util.Locale.ROOT, "%.6f s", p.get("time").asDouble()));
        assertThat(legend.get(1).get(0).asText()).isEqualTo("data (original)");
        assertThat(legend.get(1).get(1).asText())
                .isEqualTo(Long.toString(p.get("seq").asLong()));
        // retransmissions coloured by class: one colour per class, none shared with data, the ACK or the window line
        java.util.Map<String, String> strokes = new java.util.LinkedHashMap<>();
        p.get("strokes").forEach(s -> strokes.put(s.get(0).asText(), s.get(1).asText()));
        assertThat(strokes.keySet())
                .contains(
                        "data (original)",
                        "retransmission: rto",
                        "retransmission: fast",
                        "retransmission: tlp",
                        "retransmission: spurious",
                        "ACK",
                        "receive window (ACK + rwnd)");
        assertThat(new java.util.HashSet<>(strokes.values()))
                .as("distinct colours")
                .hasSize(strokes.size());
        assertThat(p.get("crosshair").asBoolean()).as("crosshair lines shown").isTrue();
        assertThat(p.get("legendBelowPlot").asBoolean())
                .as("legend outside the plot")
                .isTrue();
        assertThat(p.get("zoomed").get(1).asDouble() - p.get("zoomed").get(0).asDouble())
                .isLessThan(
                        (p.get("full").get(1).asDouble() - p.get("full").get(0).asDouble()) * 0.2);
        assertThat(p.get("reset").get(0).asDouble())
                .as("double-click resets")
                .isEqualTo(p.get("full").get(0).asDouble());
        assertThat(p.get("reset").get(1).asDouble())
                .isEqualTo(p.get("full").get(1).asDouble());
    }

    /** After load: puts the cursor on each point of the last chart's second series and reads that series' legend value. */
    private static final String SCATTER_PROBE = """
            <script>
            window.addEventListener("load", function () {
              var r = { errors: window.__errors, values: [] };
              try {
                var u = window.flowtraceCharts[window.flowtraceCharts.length - 1], pts = [[10, 1], [20, 2], [30, 3]];
                (function next(k) {
                  if (k === pts.length) {
                    var pre = document.createElement("pre");
                    pre.id = "probe-result";
                    pre.textContent = JSON.stringify(r);
                    document.body.appendChild(pre);
                    return;
                  }
                  u.setCursor({ left: u.valToPos(pts[k][0], "x"), top: u.valToPos(pts[k][1], "y") });
                  setTimeout(function () {
                    var row = u.root.querySelectorAll(".u-legend .u-series")[1];
                    r.values.push(row.querySelector(".u-value").textContent);
                    next(k + 1);
                  }, 50);
                })(0);
              } catch (e) {
                r.errors.push("probe: " + e);
                var pre = document.createElement("pre");
                pre.id = "probe-result";
                pre.textContent = JSON.stringify(r);
                document.body.appendChild(pre);
              }
            });
            </script>
            """;

    /** A scatter dot says which flow it is: hovering each point shows its value and its name, as text. */
    @Test
    void hoveringAScatterPointNamesItsFlow(@TempDir Path tmp) throws Exception {
        Optional<HeadlessChromium> chromium = HeadlessChromium.find();
        Assumptions.assumeTrue(
                chromium.isPresent(), "chromium is not installed (apt-get install chromium): browser check skipped");
        Chart scatter = Chart.xy(
                "slow-start exits",
                "BDP (bytes)",
                "exit cwnd (bytes)",
                List.of(Chart.Series.named(
                        "exit",
                        "#1f77b4",
                        Chart.Style.POINTS,
                        new double[] {30, 10, 20},
                        new double[] {3, 1, 2},
                        new String[] {"10.0.0.3:3 → 10.0.0.9:80 c2s", "10.0.0.1:1 → 10.0.0.9:80 c2s", "<b>x</b>"})));
        Path page = InteractiveReport.write(
                tmp.resolve("scatter.html"),
                "scatter",
                "",
                List.of(new Section("exits", null, List.of(), List.of(scatter))));

        JsonNode p = chromium.get().probe(page, tmp, SCATTER_PROBE);
        assertThat(p).as("the probe ran").isNotNull();
        assertThat(p.get("errors")).as("errors in the page").isEmpty();
        assertThat(p.get("values"))
                .extracting(JsonNode::asText)
                .containsExactly(
                        "1 (10.0.0.1:1 → 10.0.0.9:80 c2s)", "2 (<b>x</b>)", "3 (10.0.0.3:3 → 10.0.0.9:80 c2s)");
    }
}
