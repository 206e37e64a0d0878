package io.flowtrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs the real {@code flowtrace} entry point ({@link FlowtraceCli#main}) in a forked JVM, as the
 * launcher does, so a test sees the exit code {@code System.exit} sets and exactly what reaches
 * stdout and stderr. Standard input is a file or nothing.
 */
public final class FlowtraceProcess {
    private static final long TIMEOUT_SECONDS = 120;

    public record Result(int exit, String stdout, String stderr) {
        List<String> stderrLines() {
            return stderr.lines().toList();
        }

        List<String> stdoutLines() {
            return stdout.lines().toList();
        }

        /** No Java stack trace or exception class name reached the user. */
        public Result assertNoStackTrace() {
            assertThat(stderr)
                    .doesNotContain("\tat ")
                    .doesNotContain("Exception")
                    .doesNotContain("Caused by");
            assertThat(stdout).doesNotContain("\tat ").doesNotContain("Exception");
            return this;
        }
    }

    private FlowtraceProcess() {}

    public static Result run(String... args) throws IOException, InterruptedException {
        return run(null, args);
    }

    public static Result run(Path stdin, String... args) throws IOException, InterruptedException {
        return run(stdin, List.of(), args);
    }

    /** With JVM options ({@code -Dname=value}) before the class name. */
    public static Result run(Path stdin, List<String> jvmOptions, String... args)
            throws IOException, InterruptedException {
        return run(stdin, jvmOptions, false, args);
    }

    /**
     * stdout and stderr into one file, as a terminal shows them: the lines in the order they were
     * written (the result's stdout holds both, its stderr is empty).
     */
    static Result runInterleaved(String... args) throws IOException, InterruptedException {
        return run(null, List.of(), true, args);
    }

    private static Result run(Path stdin, List<String> jvmOptions, boolean interleaved, String... args)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(classPath());
        command.add(FlowtraceCli.class.getName());
        command.addAll(List.of(args));
        Path out = Files.createTempFile("flowtrace-out", ".txt");
        Path err = Files.createTempFile("flowtrace-err", ".txt");
        try {
            ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(out.toFile());
            if (interleaved) {
                pb.redirectErrorStream(true);
            } else {
                pb.redirectError(err.toFile());
            }
            pb.redirectInput(
                    stdin != null
                            ? ProcessBuilder.Redirect.from(stdin.toFile())
                            : ProcessBuilder.Redirect.from(new File("/dev/null")));
            Process p = pb.start();
            if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError(
                        "flowtrace " + String.join(" ", args) + " did not end within " + TIMEOUT_SECONDS + " s");
            }
            return new Result(
                    p.exitValue(),
                    Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /** Surefire's test class path (its own property when it runs through a manifest-only jar). */
    private static String classPath() {
        String cp = System.getProperty("surefire.test.class.path");
        return cp != null && !cp.isBlank() ? cp : System.getProperty("java.class.path");
    }
}
