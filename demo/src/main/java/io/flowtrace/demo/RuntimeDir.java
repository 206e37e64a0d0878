package io.flowtrace.demo;

import io.flowtrace.testkit.PrivateDirectory;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The demo's per-user private directory: its lock, its log, the launcher's build log, the PostgreSQL
 * binary cache and the run's keystore live here, never under fixed names in a shared temporary directory.
 * It is testkit's {@link PrivateDirectory} ({@code <java.io.tmpdir>/flowtrace-<uid>}; the launcher passes
 * {@code ${TMPDIR:-/tmp}/flowtrace-<uid>} as {@code -Dflowtrace.runtime.dir}), created 0700 or, when it
 * exists, used only if it is a real directory owned by this user and closed to everybody else; otherwise
 * the demo stops with one line saying why. The launcher applies the same rule (scripts/runtime-dir.sh).
 */
final class RuntimeDir {
    static final String PROPERTY = PrivateDirectory.PROPERTY;

    private RuntimeDir() {}

    /** The directory this user's demo uses (not yet checked: {@link #open}). */
    static Path path() {
        return PrivateDirectory.path();
    }

    /** Creates the directory (0700) or checks the existing one; throws {@link PrivateDirectory.UnsafeDirectoryException}. */
    static Path open(Path dir) throws IOException {
        PrivateDirectory.open(dir, "the demo's private directory");
        return dir;
    }

    /** The effective uid of this process. */
    static int currentUid() {
        return PrivateDirectory.currentUid();
    }
}
