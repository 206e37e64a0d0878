package io.flowtrace.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.testkit.HeadlessChromium;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;

/**
 * Checks a demo report page as written, then in a real headless Chromium (testkit's
 * {@link HeadlessChromium}: console messages, rendered DOM, pixels). Skips (with the reason) only when
 * no chromium binary is installed.
 */
final class ReportInBrowser {
    static final List<String> SECTIONS = List.of("time-sequence", "flight per RTT round", "retransmissions",
            "handshakes", "slow-start exits", "events per second", "receive buffer");

    private ReportInBrowser() {
    }

    static void assertRendersWithoutErrors(Path page, Path tmp) throws Exception {
        String html = Files.readString(page, StandardCharsets.UTF_8);
        // Self-contained: nothing to fetch (the only URL is the SVG namespace, which is a name, not a fetch).
        assertThat(html.replace("http://www.w3.org/2000/svg", "")).doesNotContain("http://").doesNotContain("https://")
                .doesNotContain("<script").doesNotContain("<link").doesNotContain("src=");
        for (String section : SECTIONS) {
            assertThat(html).as("section %s", section).contains(section);
        }
        int charts = count(html, "<svg ");
        assertThat(charts).isGreaterThanOrEqualTo(SECTIONS.size());
        for (String svg : html.split("<svg ")) {
            if (svg.contains("</svg>")) {
                assertThat(svg.substring(0, svg.indexOf("</svg>"))).as("every chart draws data").contains("class=\"data\"");
            }
        }

        HeadlessChromium chromium = HeadlessChromium.findOrSkip(tmp);
        Path png = tmp.resolve("report.png");
        HeadlessChromium.Run shot = chromium.screenshot(page, png, 1280, 2400);
        assertThat(shot.status()).as("chromium --screenshot:%n%s", shot.stderr()).isZero();
        assertThat(shot.consoleMessages()).as("console messages while loading the page").isEmpty();
        HeadlessChromium.Run dom = chromium.dumpDom(page);
        assertThat(dom.status()).as("chromium --dump-dom:%n%s", dom.stderr()).isZero();
        assertThat(dom.consoleMessages()).isEmpty();
        assertThat(count(dom.stdout(), "<svg ")).as("charts in the rendered DOM").isEqualTo(charts);
        assertThat(count(dom.stdout(), "class=\"data\"")).isGreaterThan(charts);

        assertThat(ImageIO.read(png.toFile())).as("screenshot %s", png).isNotNull();
        // A blank page is one colour; text plus charts in five palette colours give far more (antialiasing).
        assertThat(HeadlessChromium.distinctColours(png)).as("distinct colours in the screenshot").isGreaterThan(20);
    }

    private static int count(String text, String needle) {
        Matcher m = Pattern.compile(Pattern.quote(needle)).matcher(text);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }
}
