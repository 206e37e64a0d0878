package io.flowtrace.testkit;

import java.awt.image.BufferedImage;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Assumptions;

/**
 * A real headless Chromium (Debian's {@code chromium}, installed by .ci/run) for tests of the HTML
 * reports: console messages come on stderr with {@code --enable-logging=stderr}, the rendered DOM
 * with {@code --dump-dom}, pixels with {@code --screenshot}. Each run gets a private profile under
 * the test's directory and at most 120 s. {@link #findOrSkip} skips the test, with the reason, only
 * when no chromium binary is installed.
 */
public final class HeadlessChromium {
    private static final List<String> COMMON = List.of("--headless=new", "--no-sandbox", "--disable-gpu",
            "--enable-logging=stderr", "--v=0");
    private static final long TIMEOUT_S = 120;

    private final String binary;
    private final Path workDir;

    private HeadlessChromium(String binary, Path workDir) {
        this.binary = binary;
        this.workDir = workDir;
    }

    /** The installed chromium, running with its profile and outputs in {@code workDir}; skips the test when there is none. */
    public static HeadlessChromium findOrSkip(Path workDir) {
        String binary = find();
        Assumptions.assumeTrue(binary != null, "chromium is not installed (apt-get install chromium): browser check skipped");
        return new HeadlessChromium(binary, workDir);
    }

    /** What one chromium run left: exit status, stdout (the DOM of --dump-dom), stderr (its log). */
    public record Run(int status, String stdout, String stderr) {
        /** Chromium logs console output as {@code [pid:tid:time:INFO:CONSOLE:line] "message", source: ...} lines. */
        public List<String> consoleMessages() {
            List<String> out = new ArrayList<>();
            for (String line : stderr.split("\n")) {
                if (line.contains(":CONSOLE") || line.contains("Uncaught")) {
                    out.add(line);
                }
            }
            return out;
        }
    }

    /** Loads {@code page} in a window of {@code width} x {@code height} and writes a PNG of it to {@code png}. */
    public Run screenshot(Path page, Path png, int width, int height) throws IOException, InterruptedException {
        return run("--hide-scrollbars", "--window-size=" + width + "," + height, "--screenshot=" + png, page.toUri().toString());
    }

    /** Loads {@code page} and prints its DOM after the scripts ran; {@code flags} add e.g. a virtual-time budget. */
    public Run dumpDom(Path page, String... flags) throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(List.of(flags));
        args.add("--dump-dom");
        args.add(page.toUri().toString());
        return run(args.toArray(String[]::new));
    }

    /** Distinct colours in a PNG sampled every third pixel both ways (a blank page has one). */
    public static int distinctColours(Path png) throws IOException {
        BufferedImage image = ImageIO.read(png.toFile());
        if (image == null) {
            throw new IOException("not an image: " + png);
        }
        Set<Integer> colours = new HashSet<>();
        for (int y = 0; y < image.getHeight(); y += 3) {
            for (int x = 0; x < image.getWidth(); x += 3) {
                colours.add(image.getRGB(x, y));
            }
        }
        return colours.size();
    }

    private Run run(String... flags) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(binary);
        command.addAll(COMMON);
        command.addAll(List.of(flags));
        Path stdout = Files.createTempFile(workDir, "chromium", ".out");
        Path stderr = Files.createTempFile(workDir, "chromium", ".err");
        ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(stdout.toFile()).redirectError(stderr.toFile());
        // a private profile: no clash with another chromium, nothing left in the user's home
        pb.environment().put("HOME", workDir.toString());
        Process p = pb.start();
        if (!p.waitFor(TIMEOUT_S, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("chromium did not finish in " + TIMEOUT_S + " s: " + String.join(" ", command));
        }
        return new Run(p.exitValue(), Files.readString(stdout), Files.readString(stderr));
    }

    private static String find() {
        for (String name : List.of("chromium", "chromium-browser")) {
            for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
                if (Files.isExecutable(Path.of(dir, name))) {
                    return Path.of(dir, name).toString();
                }
            }
        }
        return null;
    }
}
