package io.flowtrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.flowtrace.core.testing.TestData;
import io.flowtrace.testkit.HeadlessChromium;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The time-sequence graph of a lossy bulk flow (testdata/tcp/cubic-loss: 36 fast retransmissions,
 * tcptrace's "rexmt data pkts") in a real headless Chromium, one page load: the retransmissions
 * are visible at overview (pixels of their colour on the canvas, drawn over the data and ACK
 * lines), a box drag zooms time and sequence both, the time range goes into the page's address,
 * and that address restores the view.
 */
class ReportZoomInChromiumTest {
    /** After load: pixels of the fast-retransmission colour, then a diagonal drag, then the address restore. */
    private static final String PROBE = """
            <script>
            window.addEventListener("load", function () {
              var r = { errors: window.__errors };
              try {
                var u = window.flowtraceTimeSequence[0];
                var c = u.ctx.canvas, d = u.ctx.getImageData(0, 0, c.width, c.height).data, fast = 0;
                for (var i = 0; i < d.length; i += 4) {
                  if (d[i] === 0xff && d[i + 1] === 0x7f && d[i + 2] === 0x0e) { fast++; }
                }
                r.fastPixels = fast;
                r.before = [u.scales.x.min, u.scales.x.max, u.scales.y.min, u.scales.y.max];
                var over = u.over, rect;
                function fire(target, type, fx, fy) {
                  target.dispatchEvent(new MouseEvent(type, { bubbles: true, cancelable: true,
                    clientX: rect.left + rect.width * fx, clientY: rect.top + rect.height * fy,
                    button: 0, buttons: type === "mouseup" ? 0 : 1, movementX: 10, movementY: 10, view: window }));
                }
                var steps = [
                  function () { over.scrollIntoView(); rect = over.getBoundingClientRect(); fire(over, "mousedown", 0.3, 0.3); },
                  function () { fire(over, "mousemove", 0.45, 0.45); },
                  function () { fire(over, "mousemove", 0.6, 0.6); },
                  function () { fire(document, "mouseup", 0.6, 0.6); },
                  function () {
                    r.after = [u.scales.x.min, u.scales.x.max, u.scales.y.min, u.scales.y.max];
                    r.hash = location.hash;
                    u.setScale("x", { min: r.before[0], max: r.before[1] });
                  },
                  // uPlot runs its setScale hooks after the task that set the scale: read the address a step later
                  function () {
                    r.hashAfterReset = location.hash;
                    history.replaceState(null, "", r.hash);
                    window.flowtraceRestoreRange();
                  },
                  function () {
                    r.restored = [u.scales.x.min, u.scales.x.max];
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

    @Test
    void retransmissionsShowAtOverviewBoxZoomMovesBothAxesAndTheAddressRestoresIt(@TempDir Path tmp) throws Exception {
        Path report = tmp.resolve("report.html");
        FlowtraceProcess.Result r = FlowtraceProcess.run(
                "analyze",
                "-q",
                "--report",
                report.toString(),
                "--top",
                "1",
                TestData.file("tcp/cubic-loss.sender.pcap.gz").toString());
        assertThat(r.exit()).as(r.stderr()).isZero();
        Optional<HeadlessChromium> chromium = HeadlessChromium.find();
        Assumptions.assumeTrue(
                chromium.isPresent(), "chromium is not installed (apt-get install chromium): browser check skipped");

        JsonNode p = chromium.get().probe(report, tmp, PROBE);
        assertThat(p).as("the probe ran").isNotNull();
        assertThat(p.get("errors")).as("errors in the page").isEmpty();
        // 36 fast retransmissions, 8 px squares: well over one square's worth of their colour at overview
        assertThat(p.get("fastPixels").asInt())
                .as("pixels of the fast-retransmission colour")
                .isGreaterThan(64);
        double[] before = doubles(p.get("before"));
        double[] after = doubles(p.get("after"));
        assertThat(after[0]).as("time from").isGreaterThan(before[0]);
        assertThat(after[1]).as("time to").isLessThan(before[1]);
        assertThat(after[2]).as("sequence from").isGreaterThan(before[2]);
        assertThat(after[3]).as("sequence to").isLessThan(before[3]);
        assertThat(p.get("hash").asText()).matches("#flow=1&t=[\\d.]+,[\\d.]+");
        assertThat(p.get("hashAfterReset").asText())
                .as("the whole range: no range in the address")
                .isEmpty();
        double[] restored = doubles(p.get("restored"));
        // the address holds the range to the microsecond
        assertThat(restored[0]).isCloseTo(after[0], org.assertj.core.data.Offset.offset(1e-6));
        assertThat(restored[1]).isCloseTo(after[1], org.assertj.core.data.Offset.offset(1e-6));
    }

    private static double[] doubles(JsonNode a) {
        double[] v = new double[a.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = a.get(i).asDouble();
        }
        return v;
    }
}
