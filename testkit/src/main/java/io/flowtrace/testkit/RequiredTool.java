package io.flowtrace.testkit;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * A program a test needs from the PATH (kubectl, psql, asciidoctor, man). .ci/run installs each, so
 * under {@code CI=true} a missing one fails the test; elsewhere the test is skipped with the reason
 * written out (.ci/check-skips.py fails the build on a skip without one).
 */
public final class RequiredTool {
    private RequiredTool() {}

    /** The first executable {@code name} in a directory of the PATH, if any. */
    public static Optional<Path> find(String name) {
        return Stream.of(System.getenv().getOrDefault("PATH", "").split(":"))
                .filter(d -> !d.isEmpty())
                .map(d -> Path.of(d, name))
                .filter(Files::isExecutable)
                .findFirst();
    }

    /** The program on the PATH, or the test stops: failed under CI, skipped with {@code why} elsewhere. */
    public static Path require(String name, String why) {
        Optional<Path> found = find(name);
        String reason = name + " is not on the PATH (" + why + "); .ci/run installs it";
        if (found.isEmpty() && "true".equals(System.getenv("CI"))) {
            throw new AssertionError(reason);
        }
        Assumptions.assumeTrue(found.isPresent(), reason);
        return found.get();
    }
}
