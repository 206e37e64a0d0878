package io.flowtrace.demo;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * The demo's per-user private directory: its lock, its log, the launcher's build log and the
 * PostgreSQL binary cache live here, never under fixed names in a shared temporary directory (where
 * another local user can plant a symbolic link or a directory of their own first). It is
 * {@code <java.io.tmpdir>/flowtrace-<uid>} (the launcher passes {@code ${TMPDIR:-/tmp}/flowtrace-<uid>}
 * as {@code -Dflowtrace.runtime.dir}), created with mode 0700 and, when it exists already, used only
 * if it is a real directory (not a link), owned by this user and closed to everybody else (0700);
 * otherwise the demo stops with one line saying why. The launcher applies the same rule (scripts/runtime-dir.sh).
 */
final class RuntimeDir {
    static final String PROPERTY = "flowtrace.runtime.dir";
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");

    private RuntimeDir() {}

    /** The directory this user's demo uses (not yet checked: {@link #open}). */
    static Path path() {
        String override = System.getProperty(PROPERTY);
        if (override != null && !override.isBlank()) {
            return Path.of(override);
        }
        return Path.of(System.getProperty("java.io.tmpdir"), "flowtrace-" + currentUid());
    }

    /** Creates the directory (0700) or checks the existing one; throws {@link UnsafeDirectoryException} with the reason. */
    static Path open(Path dir) throws IOException {
        try {
            Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
        } catch (FileAlreadyExistsException e) {
            // checked below, whoever made it
        }
        check(dir, "the demo's private directory");
        return dir;
    }

    /** A directory this user alone controls: not a symbolic link, owned by this uid, no group or other permission. */
    static void check(Path dir, String what) throws IOException {
        PosixFileAttributes a = Files.readAttributes(dir, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        String refuse = null;
        if (a.isSymbolicLink()) {
            refuse = "is a symbolic link";
        } else if (!a.isDirectory()) {
            refuse = "is not a directory";
        } else {
            int owner = (Integer) Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS);
            if (owner != currentUid()) {
                refuse = "belongs to uid " + owner + ", not to you (uid " + currentUid() + ")";
            } else if (!a.permissions().equals(OWNER_ONLY)) {
                refuse = "has mode " + PosixFilePermissions.toString(a.permissions()) + ", not rwx------";
            }
        }
        if (refuse != null) {
            throw new UnsafeDirectoryException(
                    what + " " + dir + " " + refuse + "; another local user could swap its files. Remove it (or set -D"
                            + PROPERTY + "=DIR) and run again.");
        }
    }

    /** The effective uid of this process: the owner of /proc/self (proc(5)). */
    static int currentUid() {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (IOException e) {
            throw new IllegalStateException("cannot read this process's uid from /proc/self", e);
        }
    }

    static final class UnsafeDirectoryException extends IOException {
        private static final long serialVersionUID = 1L;

        UnsafeDirectoryException(String message) {
            super(message);
        }
    }
}
