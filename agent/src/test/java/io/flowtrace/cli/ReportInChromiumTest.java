package io.flowtrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.flowtrace.core.testing.TestData;
import io.flowtrace.testkit.HeadlessChromium;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Run in the page after load: what the test asserts, written into the DOM for --dump-dom. */
    private static final String PROBE = """
            <script>
            window.addEventListener("load", function () {
              var r = { errors: window.__errors, charts: 0, drawn: 0 };
              try {
                var charts = window.flowtraceCharts || [];
                r.charts = charts.length;
                charts.forEach(function (u) {
                  var c = u.ctx.canvas, d = u.ctx.getImageData(0, 0, c.width, c.height).data, inked = 0;
                  for (var i = 3; i < d.length; i += 4 * 7) { if (d[i] > 0) { inked++; } }
                  if (inked > 50) { r.drawn++; }
                });
                var u = charts[0], other = charts[1];
                r.before = [u.scales.x.min, u.scales.x.max];
                var over = u.over, rect = over.getBoundingClientRect(), y = rect.top + rect.height / 2;
                function fire(target, type, x) {
                  target.dispatchEvent(new MouseEvent(type, { bubbles: true, cancelable: true, clientX: x, clientY: y,
                    button: 0, buttons: type === "mouseup" ? 0 : 1, movementX: 10, movementY: 0, view: window }));
                }
                // one event at a time, as a hand would; a move has a movement (uPlot ignores a 0-distance move while
                // dragging: Chrome's stray mousemove after mousedown, uPlot.iife.js mouseMove)
                var steps = [
                  function () { fire(over, "mousedown", rect.left + rect.width * 0.3); },
                  function () { fire(over, "mousemove", rect.left + rect.width * 0.45); },
                  function () { fire(over, "mousemove", rect.left + rect.width * 0.6); },
                  function () { fire(document, "mouseup", rect.left + rect.width * 0.6); },
                  function () {
                    r.after = [u.scales.x.min, u.scales.x.max];
                    r.otherAfter = [other.scales.x.min, other.scales.x.max];
                    done();
                  }];
                var next = function () { steps.shift()(); if (steps.length) { setTimeout(next, 50); } };
                next();
                return;
              } catch (e) {
                r.errors.push("probe: " + e);
              }
              done();
              function done() {
                var pre = document.createElement("pre");
              pre.id = "probe-result";
              pre.textContent = JSON.stringify(r);
              document.body.appendChild(pre);
              }
            });
            </script>
            """;
    private static final String ERROR_TRAP = """
            <script>
            window.__errors = [];
            window.addEventListener("error", function (e) { window.__errors.push(String(e.message)); });
            (function () { var err = console.error; console.error = function () {
              window.__errors.push(Array.prototype.join.call(arguments, " ")); err.apply(console, arguments); }; })();
            </script>
            """;

    @Test
    void reportLoadsDrawsZoomsAndIsNotBlank(@TempDir Path tmp) throws Exception {
        Path report = tmp.resolve("report.html");
        FlowtraceProcess.Result r = FlowtraceProcess.run("analyze", "-q", "--report", report.toString(), "--top", "2",
                TestData.file("tcp/cubic-loss.sender.pcap.gz").toString());
        assertThat(r.exit()).as(r.stderr()).isZero();
        String html = Files.readString(report, StandardCharsets.UTF_8);
        // One self-contained file: no script, style or image to fetch; uPlot's licence travels with it.
        assertThat(html).doesNotContainPattern("<script[^>]+src=").doesNotContain("<link").doesNotContain("<img")
                .contains("id=\"uplot-license\"").contains("The MIT License");

        HeadlessChromium chromium = HeadlessChromium.findOrSkip(tmp);
        Path png = tmp.resolve("report.png");
        HeadlessChromium.Run shot = chromium.screenshot(report, png, 1300, 1600);
        assertThat(shot.status()).as("chromium --screenshot:%n%s", shot.stderr()).isZero();
        assertThat(shot.consoleMessages()).as("console messages while loading the report").isEmpty();
        assertThat(HeadlessChromium.distinctColours(png)).as("distinct colours in the screenshot (a blank page has one)")
                .isGreaterThan(20);

        Path probed = tmp.resolve("probed.html");
        Files.writeString(probed, html.replaceFirst("<head>", "<head>" + Matcher.quoteReplacement(ERROR_TRAP))
                .replace("</body>", PROBE + "</body>"), StandardCharsets.UTF_8);
        HeadlessChromium.Run dom = chromium.dumpDom(probed, "--window-size=1300,1600", "--virtual-time-budget=10000");
        assertThat(dom.status()).as("chromium --dump-dom:%n%s", dom.stderr()).isZero();
        Matcher m = Pattern.compile("<pre id=\"probe-result\">(.*?)</pre>", Pattern.DOTALL).matcher(dom.stdout());
        assertThat(m.find()).as("the probe ran:%n%s", dom.stderr()).isTrue();
        JsonNode p = JSON.readTree(m.group(1).replace("&quot;", "\"").replace("&amp;", "&"));
        assertThat(p.get("errors")).as("errors in the page").isEmpty();
        // two flows (testdata/tcp/cubic-loss.sender.tcptrace.txt), three charts each
        assertThat(p.get("charts").asInt()).isEqualTo(6);
        assertThat(p.get("drawn").asInt()).as("charts with ink on their canvas").isEqualTo(6);
        double min0 = p.get("before").get(0).asDouble();
        double max0 = p.get("before").get(1).asDouble();
        double min1 = p.get("after").get(0).asDouble();
        double max1 = p.get("after").get(1).asDouble();
        assertThat(max1 - min1).as("drag-zoom narrows the time range").isLessThan((max0 - min0) * 0.5).isPositive();
        assertThat(min1).isGreaterThan(min0);
        assertThat(p.get("otherAfter").get(0).asDouble()).as("the flow's other charts follow").isEqualTo(min1);
        assertThat(p.get("otherAfter").get(1).asDouble()).isEqualTo(max1);
    }
}
