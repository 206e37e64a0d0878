package io.flowtrace.jobs.deploy;

import io.flowtrace.core.testing.TestData;
import java.nio.file.Path;

/** Paths in the repository, from any module's working directory. */
final class RepoFiles {
    private RepoFiles() {}

    static Path root() {
        return TestData.root().getParent();
    }

    static Path path(String relative) {
        return root().resolve(relative);
    }
}
