package io.flowtrace.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Assumptions;

/**
 * Opens a report in a real headless Chromium (Debian's {@code chromium}): console messages come on
 * stderr with {@code --enable-logging=stderr}, the rendered DOM with {@code --dump-dom}, pixels with
 * {@code --screenshot}. Skips (with the reason) only when no chromium binary is installed.
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

        String chromium = findChromium();
        Assumptions.assumeTrue(chromium != null, "chromium is not installed (apt-get install chromium): browser check skipped");
        Path png = tmp.resolve("report.png");
        Result shot = run(tmp, chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                "--enable-logging=stderr", "--v=0", "--window-size=1280,2400", "--screenshot=" + png,
                page.toUri().toString());
        assertThat(shot.status).as("chromium --screenshot:%n%s", shot.stderr).isZero();
        assertThat(consoleMessages(shot.stderr)).as("console messages while loading the page").isEmpty();
        Result dom = run(tmp, chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr",
                "--v=0", "--dump-dom", page.toUri().toString());
        assertThat(dom.status).as("chromium --dump-dom:%n%s", dom.stderr).isZero();
        assertThat(consoleMessages(dom.stderr)).isEmpty();
        assertThat(count(dom.stdout, "<svg ")).as("charts in the rendered DOM").isEqualTo(charts);
        assertThat(count(dom.stdout, "class=\"data\"")).isGreaterThan(charts);

        BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image).as("screenshot %s", png).isNotNull();
        Set<Integer> colors = new HashSet<>();
        for (int y = 0; y < image.getHeight(); y += 3) {
            for (int x = 0; x < image.getWidth(); x += 3) {
                colors.add(image.getRGB(x, y));
            }
        }
        // A blank page is one colour; text plus charts in five palette colours give far more (antialiasing).
        assertThat(colors.size()).as("distinct colours in the screenshot").isGreaterThan(20);
    }

    /** Chromium logs console output as {@code [pid:tid:time:INFO:CONSOLE:line] "message", source: ...} lines (checked by hand with a page that calls console.error). */
    static List<String> consoleMessages(String stderr) {
        List<String> out = new ArrayList<>();
        for (String line : stderr.split("\n")) {
            if (line.contains(":CONSOLE") || line.contains("Uncaught")) {
                out.add(line);
            }
        }
        return out;
    }

    private static String findChromium() {
        for (String name : List.of("chromium", "chromium-browser")) {
            for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
                if (Files.isExecutable(Path.of(dir, name))) {
                    return Path.of(dir, name).toString();
                }
            }
        }
        return null;
    }

    private record Result(int status, String stdout, String stderr) {
    }

    private static Result run(Path tmp, String... command) throws Exception {
        Path stdout = Files.createTempFile(tmp, "chromium", ".out");
        Path stderr = Files.createTempFile(tmp, "chromium", ".err");
        ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(stdout.toFile()).redirectError(stderr.toFile());
        // a private profile: no clash with another chromium, nothing left in the user's home
        pb.environment().put("HOME", tmp.toString());
        Process p = pb.start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("chromium did not finish in 120 s: " + String.join(" ", command));
        }
        return new Result(p.exitValue(), Files.readString(stdout), Files.readString(stderr));
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
