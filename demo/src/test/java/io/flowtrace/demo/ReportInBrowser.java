package io.flowtrace.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.flowtrace.testkit.HeadlessChromium;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;

/**
 * Opens the demo's report, the uPlot page of {@code analyze --report}, in a real headless Chromium
 * (Debian's {@code chromium}): self-contained, every section there, no console message or page
 * error while loading, every chart drawn (ink on its canvas), a mouse drag zooms the first chart,
 * and the screenshot is not blank. Skips (with the reason) only when no chromium binary is installed.
 */
final class ReportInBrowser {
    /** A text of each section: its heading, a chart title or (for the flows' graphs) the page's chart title. */
    static final List<String> SECTIONS = List.of(
            "time-sequence",
            "cwnd estimate per RTT round",
            "retransmissions",
            "handshakes",
            "slow-start exits",
            "events per second",
            "receive buffer",
            "100 ms windows"); // the demo's short conntrack window (DemoJob): the 0.43 s burst as a curve

    private ReportInBrowser() {}

    static void assertRendersWithoutErrors(Path page, Path tmp) throws Exception {
        String html = Files.readString(page, StandardCharsets.UTF_8);
        // Self-contained: no script, style or image to fetch; uPlot's licence travels with it.
        assertThat(html)
                .doesNotContainPattern("<script[^>]+src=")
                .doesNotContain("<link")
                .doesNotContain("<img")
                .contains("id=\"uplot-license\"")
                .contains("The MIT License");
        for (String section : SECTIONS) {
            assertThat(html).as("section %s", section).contains(section);
        }

        Optional<HeadlessChromium> chromium = HeadlessChromium.find();
        Assumptions.assumeTrue(
                chromium.isPresent(), "chromium is not installed (apt-get install chromium): browser check skipped");
        HeadlessChromium.Screenshot shot = chromium.get().screenshot(page, tmp, 1280, 2400);
        assertThat(shot.status())
                .as("chromium --screenshot:%n%s", shot.stderr())
                .isZero();
        assertThat(shot.consoleMessages())
                .as("console messages while loading the page")
                .isEmpty();
        assertThat(shot.image()).isNotNull();
        // A blank page is one colour; text plus charts in several palette colours give far more (antialiasing).
        assertThat(shot.distinctColours())
                .as("distinct colours in the screenshot")
                .isGreaterThan(20);

        JsonNode p = chromium.get().probe(page, tmp);
        assertThat(p).as("the probe ran").isNotNull();
        assertThat(p.get("errors")).as("errors in the page").isEmpty();
        assertThat(p.get("charts").asInt()).as("uPlot charts").isGreaterThanOrEqualTo(SECTIONS.size());
        assertThat(p.get("drawn").asInt())
                .as("charts with ink on their canvas")
                .isEqualTo(p.get("charts").asInt());
        double min0 = p.get("before").get(0).asDouble();
        double max0 = p.get("before").get(1).asDouble();
        double min1 = p.get("after").get(0).asDouble();
        double max1 = p.get("after").get(1).asDouble();
        assertThat(max1 - min1)
                .as("drag-zoom narrows the first chart's time range")
                .isLessThan((max0 - min0) * 0.5)
                .isPositive();
        assertThat(min1).isGreaterThan(min0);
    }
}
