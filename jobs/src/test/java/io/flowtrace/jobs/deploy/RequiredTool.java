package io.flowtrace.jobs.deploy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * A program a test needs (kubectl, psql). .ci/run installs each, so under {@code CI=true} a missing one
 * fails the test; elsewhere the test is skipped with the reason written out (.ci/check-skips.py fails
 * the build on a skip without one).
 */
final class RequiredTool {
    private RequiredTool() {}

    /** The program on the PATH, or the test stops: failed under CI, skipped with {@code why} elsewhere. */
    static Path require(String name, String why) {
        Path found = Stream.of(System.getenv().getOrDefault("PATH", "").split(":"))
                .filter(d -> !d.isEmpty())
                .map(d -> Path.of(d, name))
                .filter(Files::isExecutable)
                .findFirst()
                .orElse(null);
        String reason = name + " is not on the PATH (" + why + "); .ci/run installs it";
        if (found == null && "true".equals(System.getenv("CI"))) {
            throw new AssertionError(reason);
        }
        Assumptions.assumeTrue(found != null, reason);
        return found;
    }
}
