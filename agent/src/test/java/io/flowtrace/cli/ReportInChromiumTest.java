package io.flowtrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.flowtrace.core.testing.TestData;
import io.flowtrace.testkit.HeadlessChromium;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
        // two flows (testdata/tcp/cubic-loss.sender.tcptrace.txt), three charts each
        assertThat(p.get("charts").asInt()).isEqualTo(6);
        assertThat(p.get("drawn").asInt()).as("charts with ink on their canvas").isEqualTo(6);
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
}
