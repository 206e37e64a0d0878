package io.flowtrace.testkit;

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
 * This user's private directory, {@code <java.io.tmpdir>/flowtrace-<uid>} (or {@code -Dflowtrace.runtime.dir}):
 * the demo's lock and log, the PostgreSQL binary cache of the demo and of the test suite, per-run
 * secrets (passwords, keystores). Never under fixed names in a shared temporary directory, where another
 * local user can plant a link or a directory of their own first. It is created with mode 0700 and, when
 * it exists already, used only if it is a real directory (not a link), owned by this user and closed to
 * everybody else (0700); otherwise {@link UnsafeDirectoryException} says why in one line. The launcher
 * applies the same rule (scripts/runtime-dir.sh).
 */
public final class PrivateDirectory {
    public static final String PROPERTY = "flowtrace.runtime.dir";
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");

    private PrivateDirectory() {}

    /** The directory this user's processes use (not yet checked: {@link #open}). */
    public static Path path() {
        String override = System.getProperty(PROPERTY);
        if (override != null && !override.isBlank()) {
            return Path.of(override);
        }
        return Path.of(System.getProperty("java.io.tmpdir"), "flowtrace-" + currentUid());
    }

    /** {@link #open} of {@link #path}. */
    public static Path open() throws IOException {
        return open(path());
    }

    /** Creates the directory (0700) or checks the existing one; throws {@link UnsafeDirectoryException} with the reason. */
    public static Path open(Path dir) throws IOException {
        return open(dir, "the private directory");
    }

    /** {@link #open(Path)}, naming the directory {@code what} in the refusal. */
    public static Path open(Path dir, String what) throws IOException {
        try {
            Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
        } catch (FileAlreadyExistsException e) {
            // checked below, whoever made it
        }
        check(dir, what);
        return dir;
    }

    /** A sub-directory of a checked private directory, created 0700 or checked like it. */
    public static Path subdirectory(Path privateDir, String name, String what) throws IOException {
        Path dir = privateDir.resolve(name);
        try {
            Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
        } catch (FileAlreadyExistsException e) {
            // checked below
        }
        check(dir, what);
        return dir;
    }

    /** A directory this user alone controls: not a symbolic link, owned by this uid, no group or other permission. */
    public static void check(Path dir, String what) throws IOException {
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
    public static int currentUid() {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (IOException e) {
            throw new IllegalStateException("cannot read this process's uid from /proc/self", e);
        }
    }

    /** A private directory (or one inside it) that is a link, another user's, or open to others. */
    public static final class UnsafeDirectoryException extends IOException {
        private static final long serialVersionUID = 1L;

        public UnsafeDirectoryException(String message) {
            super(message);
        }
    }
}
