package io.flowtrace.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;

/**
 * A real headless Chromium (Debian's {@code chromium}, installed by .ci/run) opening a flowtrace
 * report page, the uPlot page of {@code analyze --report} and {@code demo --report}: console messages
 * come on stderr with {@code --enable-logging=stderr}, pixels with {@code --screenshot}, and what a
 * probe script measured inside the page (errors, charts, ink on their canvases, a mouse drag's zoom)
 * through {@code --dump-dom}. Each run gets a private profile under the caller's temporary directory.
 */
public final class HeadlessChromium {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long TIMEOUT_SECONDS = 120;

    /**
     * A probe script of {@code steps}: JavaScript that, after the page's load, fills the object {@code r}
     * (it starts as {@code {errors: window.__errors}}) and pushes functions onto the array {@code steps};
     * they run one at a time, 50 ms apart (uPlot redraws, and runs its setScale hooks, after the task
     * that changed a scale), and then {@code r} is written for {@link #probe(Path, Path, String)}. An
     * exception anywhere is one more entry of {@code r.errors}. {@code fire(target, type, rect, fx, fy)}
     * sends a mouse event at the fractions fx, fy of {@code rect} as a hand would (a move has a movement:
     * uPlot ignores a 0-distance move while dragging, Chrome's stray mousemove after mousedown).
     */
    public static String stepsProbe(String steps) {
        return """
                <script>
                window.addEventListener("load", function () {
                  var r = { errors: window.__errors }, steps = [];
                  function fire(target, type, rect, fx, fy) {
                    target.dispatchEvent(new MouseEvent(type, { bubbles: true, cancelable: true,
                      clientX: rect.left + rect.width * fx, clientY: rect.top + rect.height * fy,
                      button: 0, buttons: type === "mouseup" || type === "click" ? 0 : 1, movementX: 10, movementY: 10,
                      view: window }));
                  }
                  function done() {
                    var pre = document.createElement("pre");
                    pre.id = "probe-result";
                    pre.textContent = JSON.stringify(r);
                    document.body.appendChild(pre);
                  }
                  function next() {
                    try { steps.shift()(); } catch (e) { r.errors.push("probe: " + e); steps = []; }
                    if (steps.length) { setTimeout(next, 50); } else { done(); }
                  }
                  try {
                """ + steps + """
                  } catch (e) {
                    r.errors.push("probe: " + e);
                    steps = [];
                  }
                  if (steps.length) { next(); } else { done(); }
                });
                </script>
                """;
    }

    /** Run in the page after load: errors, charts, ink on their canvases, a drag across the first chart. */
    private static final String PROBE = stepsProbe("""
            r.charts = 0;
            r.drawn = 0;
            var charts = window.flowtraceCharts || [];
            r.charts = charts.length;
            charts.forEach(function (u) {
              var c = u.ctx.canvas, d = u.ctx.getImageData(0, 0, c.width, c.height).data, inked = 0;
              for (var i = 3; i < d.length; i += 4 * 7) { if (d[i] > 0) { inked++; } }
              if (inked > 50) { r.drawn++; }
            });
            var u = charts[0], other = charts[1], over = u.over, rect;
            r.rows = u.data[0].length;
            r.before = [u.scales.x.min, u.scales.x.max];
            // along time only: the drag stays on the plot's middle line
            steps.push(
              function () { over.scrollIntoView(); rect = over.getBoundingClientRect(); fire(over, "mousedown", rect, 0.3, 0.5); },
              function () { fire(over, "mousemove", rect, 0.45, 0.5); },
              function () { fire(over, "mousemove", rect, 0.6, 0.5); },
              function () { fire(document, "mouseup", rect, 0.6, 0.5); },
              function () {
                r.after = [u.scales.x.min, u.scales.x.max];
                r.otherAfter = other ? [other.scales.x.min, other.scales.x.max] : null;
              });
            """);

    private static final String ERROR_TRAP = """
            <script>
            window.__errors = [];
            window.addEventListener("error", function (e) { window.__errors.push(String(e.message)); });
            (function () { var err = console.error; console.error = function () {
              window.__errors.push(Array.prototype.join.call(arguments, " ")); err.apply(console, arguments); }; })();
            </script>
            """;

    private final String binary;

    private HeadlessChromium(String binary) {
        this.binary = binary;
    }

    /** The chromium on the PATH, if there is one. */
    public static Optional<HeadlessChromium> find() {
        return RequiredTool.find("chromium")
                .or(() -> RequiredTool.find("chromium-browser"))
                .map(binary -> new HeadlessChromium(binary.toString()));
    }

    /** A screenshot of the page: the exit status, the console lines logged while loading, the image. */
    public record Screenshot(int status, String stderr, List<String> consoleMessages, BufferedImage image) {
        /** Distinct colours in a grid of every third pixel: a blank page has one. */
        public int distinctColours() {
            Set<Integer> colours = new HashSet<>();
            for (int y = 0; y < image.getHeight(); y += 3) {
                for (int x = 0; x < image.getWidth(); x += 3) {
                    colours.add(image.getRGB(x, y));
                }
            }
            return colours.size();
        }
    }

    public Screenshot screenshot(Path page, Path tmp, int width, int height) throws IOException, InterruptedException {
        Path png = Files.createTempFile(tmp, "report", ".png");
        Run shot = run(
                tmp,
                binary,
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                "--enable-logging=stderr",
                "--v=0",
                "--window-size=" + width + "," + height,
                "--screenshot=" + png,
                page.toUri().toString());
        BufferedImage image = shot.status == 0 && Files.size(png) > 0 ? ImageIO.read(png.toFile()) : null;
        return new Screenshot(shot.status, shot.stderr, consoleMessages(shot.stderr), image);
    }

    /**
     * Opens a copy of the report page with an error trap and the probe: the probe's JSON (errors,
     * charts, drawn, rows: the length of the first chart's x values, before/after: the first chart's x range before and after a mouse drag across
     * 30-60 % of it, otherAfter: the second chart's x range after it), or null when it did not run.
     */
    public JsonNode probe(Path page, Path tmp) throws IOException, InterruptedException {
        return probe(page, tmp, PROBE);
    }

    /**
     * As {@link #probe(Path, Path)} with a probe script of the caller's: a {@code <script>} that, after
     * load, appends {@code <pre id="probe-result">JSON</pre>} to the body ({@code window.__errors}
     * holds the page's errors).
     */
    public JsonNode probe(Path page, Path tmp, String probeScript) throws IOException, InterruptedException {
        String html = Files.readString(page, StandardCharsets.UTF_8);
        Path probed = Files.createTempFile(tmp, "probed", ".html");
        Files.writeString(
                probed,
                html.replaceFirst("<head>", "<head>" + Matcher.quoteReplacement(ERROR_TRAP))
                        .replace("</body>", probeScript + "</body>"),
                StandardCharsets.UTF_8);
        Run dom = run(
                tmp,
                binary,
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--enable-logging=stderr",
                "--v=0",
                "--window-size=1300,1600",
                "--virtual-time-budget=10000",
                "--dump-dom",
                probed.toUri().toString());
        Matcher m = Pattern.compile("<pre id=\"probe-result\">(.*?)</pre>", Pattern.DOTALL)
                .matcher(dom.stdout);
        if (dom.status != 0 || !m.find()) {
            return null;
        }
        return JSON.readTree(m.group(1)
                .replace("&quot;", "\"")
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&amp;", "&"));
    }

    /**
     * Chromium logs console output as {@code [pid:tid:time:INFO:CONSOLE:line] "message", source: ...}
     * lines (checked by hand with a page that calls console.error).
     */
    public static List<String> consoleMessages(String stderr) {
        List<String> out = new ArrayList<>();
        for (String line : stderr.split("\n")) {
            if (line.contains(":CONSOLE") || line.contains("Uncaught")) {
                out.add(line);
            }
        }
        return out;
    }

    private record Run(int status, String stdout, String stderr) {}

    private static Run run(Path tmp, String... command) throws IOException, InterruptedException {
        Path stdout = Files.createTempFile(tmp, "chromium", ".out");
        Path stderr = Files.createTempFile(tmp, "chromium", ".err");
        ProcessBuilder pb =
                new ProcessBuilder(command).redirectOutput(stdout.toFile()).redirectError(stderr.toFile());
        pb.environment().put("HOME", tmp.toString()); // a private profile, nothing left in the user's home
        Process proc = pb.start();
        if (!proc.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            proc.destroyForcibly();
            throw new IOException("chromium did not finish in " + TIMEOUT_SECONDS + " s: " + String.join(" ", command));
        }
        return new Run(proc.exitValue(), Files.readString(stdout), Files.readString(stderr));
    }
}
