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
 * and that address restores the view; the loss strip under the time axis has a tick per
 * retransmission, and a click on one zooms both axes to it.
 */
class ReportZoomInChromiumTest {
    /**
     * After load: pixels of the fast-retransmission colour, then a diagonal drag, then the address
     * restore, then a click on the loss strip's middle tick.
     */
    private static final String PROBE = HeadlessChromium.stepsProbe("""
            var u = window.flowtraceTimeSequence[0], strip = window.flowtraceLossStrips[0];
            var c = u.ctx.canvas, d = u.ctx.getImageData(0, 0, c.width, c.height).data, fast = 0;
            for (var i = 0; i < d.length; i += 4) {
              if (d[i] === 0xff && d[i + 1] === 0x7f && d[i + 2] === 0x0e) { fast++; }
            }
            r.fastPixels = fast;
            r.before = [u.scales.x.min, u.scales.x.max, u.scales.y.min, u.scales.y.max];
            var over = u.over, rect, target;
            steps.push(
              function () { over.scrollIntoView(); rect = over.getBoundingClientRect(); fire(over, "mousedown", rect, 0.3, 0.3); },
              function () { fire(over, "mousemove", rect, 0.45, 0.45); },
              function () { fire(over, "mousemove", rect, 0.6, 0.6); },
              function () { fire(document, "mouseup", rect, 0.6, 0.6); },
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
                u.setScale("x", { min: r.before[0], max: r.before[1] });
                u.setScale("y", { min: r.before[2], max: r.before[3] });
              },
              // the loss strip at overview: every retransmission a tick; a click on the middle one zooms to it
              function () {
                r.stripTicks = strip.shown().length;
                target = strip.shown()[Math.floor(r.stripTicks / 2)];
                r.target = [target.event.t, target.event.seq];
                strip.canvas.scrollIntoView();
                var box = strip.canvas.getBoundingClientRect();
                fire(strip.canvas, "click", { left: box.left + target.x + 2, top: box.top, width: 0, height: box.height }, 0, 0.5);
              },
              function () {
                r.stripZoom = [u.scales.x.min, u.scales.x.max, u.scales.y.min, u.scales.y.max];
                r.stripOther = [window.flowtraceCharts[1].scales.x.min, window.flowtraceCharts[1].scales.x.max];
              });
            """);

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

        // the loss strip: tcptrace's "rexmt data pkts" of this connection is 36, a tick each at overview
        assertThat(p.get("stripTicks").asInt()).as("loss strip ticks").isEqualTo(36);
        double[] target = doubles(p.get("target"));
        double[] zoom = doubles(p.get("stripZoom"));
        assertThat(target[0]).as("the clicked retransmission's time is in view").isBetween(zoom[0], zoom[1]);
        assertThat(target[1]).as("and its sequence number").isBetween(zoom[2], zoom[3]);
        // a fiftieth of the flow in time (1/100 either side), far narrower than the overview
        assertThat(zoom[1] - zoom[0]).isLessThan((before[1] - before[0]) / 20);
        assertThat(zoom[3] - zoom[2]).isLessThan(before[3] - before[2]);
        assertThat(doubles(p.get("stripOther")))
                .as("the flow's next chart follows")
                .containsExactly(zoom[0], zoom[1]);
    }

    private static double[] doubles(JsonNode a) {
        double[] v = new double[a.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = a.get(i).asDouble();
        }
        return v;
    }
}
