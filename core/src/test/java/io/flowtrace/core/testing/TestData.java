package io.flowtrace.core.testing;

import java.nio.file.Files;
import java.nio.file.Path;

/** Locates the repository's committed captures (testdata/) from any module's working directory. */
public final class TestData {
    private TestData() {}

    public static Path root() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null) {
            Path candidate = dir.resolve("testdata");
            if (Files.isDirectory(candidate) && Files.exists(dir.resolve("pom.xml"))) {
                return candidate;
            }
            dir = dir.getParent();
        }
        throw new IllegalStateException(
                "testdata/ not found above " + Path.of("").toAbsolutePath());
    }

    public static Path file(String relative) {
        return root().resolve(relative);
    }
}
