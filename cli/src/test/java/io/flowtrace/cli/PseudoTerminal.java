package io.flowtrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Runs the real {@code flowtrace} entry point in a forked JVM inside util-linux {@code script(1)},
 * which gives it a pseudo-terminal: what a user at a terminal sees, progress bars included.
 */
public final class PseudoTerminal {
    private PseudoTerminal() {}

    public static boolean available() {
        return new File("/usr/bin/script").canExecute();
    }

    /**
     * Runs flowtrace with the shell command tail {@code args} (redirections allowed) and returns
     * what reached the terminal; the run must exit 0 within {@code timeoutSeconds}.
     */
    public static String run(Path dir, String args, long timeoutSeconds) throws Exception {
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path log = Files.createTempFile(dir, "tty", ".log");
        String command = java + " -cp '" + cp + "' " + FlowtraceCli.class.getName() + " " + args;
        Process p = new ProcessBuilder("/usr/bin/script", "-qec", command, log.toString())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectErrorStream(true)
                .start();
        assertThat(p.waitFor(timeoutSeconds, TimeUnit.SECONDS))
                .as("flowtrace under script ends")
                .isTrue();
        String text = Files.readString(log, StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(text).isZero();
        // script(1) frames the session with "Script started/done" lines: only what flowtrace wrote is kept
        return text.replaceAll("(?m)^Script (started|done) on .*$", "");
    }
}
