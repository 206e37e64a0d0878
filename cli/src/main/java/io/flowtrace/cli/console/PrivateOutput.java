package io.flowtrace.cli.console;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;

/**
 * Writes a file the user named ({@code analyze --report}, the demo's {@code --report} and
 * {@code --export-flows}) so that another local user can neither redirect it nor swap it: every
 * directory on the way is owned by this user or by root and, if others may write to it, has the
 * sticky bit (as /tmp); a symbolic link on the way counts only when this user or root made it; a
 * missing directory is created and then checked as well; an existing file of the name must be this
 * user's own. The content goes to a new temporary file in the same directory (created exclusively,
 * mode 0600, which never follows a link) and takes the name by an atomic rename, which replaces a
 * link rather than writing through it. Anything else is refused with {@link RefusedException}, one
 * line saying which path and why (docs/reliability.md "Security").
 */
public final class PrivateOutput {
    private static final int ROOT = 0;

    private PrivateOutput() {}

    /** The content of the file, written to {@code out} (left open: the caller of the body closes nothing). */
    @FunctionalInterface
    public interface Body<E extends Exception> {
        void write(OutputStream out) throws IOException, E;
    }

    /** Writes {@code file} from {@code body}: the directories checked or created, then a temporary file renamed. */
    public static <E extends Exception> Path write(Path file, Body<E> body) throws IOException, E {
        Path target = file.toAbsolutePath().normalize();
        Path dir = directories(target.getParent(), true);
        checkExistingFile(target);
        Path temp = Files.createTempFile(dir, "." + target.getFileName() + ".", ".tmp");
        try {
            try (OutputStream out = Files.newOutputStream(temp, LinkOption.NOFOLLOW_LINKS)) {
                body.write(out);
            }
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(temp);
        }
        return target;
    }

    /** Checks, without creating anything, that {@link #write} may write {@code file}; throws {@link RefusedException}. */
    public static void check(Path file) throws IOException {
        Path target = file.toAbsolutePath().normalize();
        directories(target.getParent(), false);
        checkExistingFile(target);
    }

    /** The directory {@code dir}, every component checked from the root down; the missing ones created when asked. */
    private static Path directories(Path dir, boolean create) throws IOException {
        int me = currentUid();
        Path at = dir.getRoot();
        for (Path name : dir) {
            Path parent = at;
            at = at.resolve(name);
            PosixFileAttributes a;
            try {
                a = Files.readAttributes(at, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            } catch (NoSuchFileException e) {
                if (!create) {
                    return dir; // created later, in a directory checked to be trusted
                }
                try {
                    Files.createDirectory(at);
                } catch (FileAlreadyExistsException raced) {
                    // somebody made it between the two calls: checked below like any other
                }
                a = Files.readAttributes(at, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                if (owner(at) != me) {
                    throw new RefusedException(at, "was created by uid " + owner(at) + " before this program could");
                }
            }
            if (a.isSymbolicLink()) {
                int linkOwner = owner(at);
                if (linkOwner != me && linkOwner != ROOT) {
                    throw new RefusedException(at, "is a symbolic link of uid " + linkOwner + " in " + parent);
                }
                a = Files.readAttributes(at, PosixFileAttributes.class); // a trusted link: its target checked
            }
            if (!a.isDirectory()) { // a plain mistake, not another user's doing: said as any write error
                throw new FileAlreadyExistsException(at.toString(), null, "exists and is not a directory");
            }
            trustedDirectory(at, a, me);
        }
        return dir;
    }

    private static void trustedDirectory(Path at, PosixFileAttributes a, int me) throws IOException {
        int owner = (Integer) Files.getAttribute(at, "unix:uid");
        if (owner != me && owner != ROOT) {
            throw new RefusedException(at, "belongs to uid " + owner + ", not to you (uid " + me + ") or root");
        }
        int mode = (Integer) Files.getAttribute(at, "unix:mode");
        boolean sticky = (mode & 01000) != 0;
        if (a.permissions().contains(PosixFilePermission.OTHERS_WRITE) && !sticky) {
            throw new RefusedException(at, "is writable by every user and has no sticky bit");
        }
    }

    private static void checkExistingFile(Path target) throws IOException {
        PosixFileAttributes a;
        try {
            a = Files.readAttributes(target, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException absent) {
            return;
        }
        if (a.isDirectory()) {
            throw new RefusedException(target, "is a directory");
        }
        int me = currentUid();
        if (owner(target) != me) {
            throw new RefusedException(
                    target, "exists and belongs to uid " + owner(target) + ", not to you (uid " + me + ")");
        }
    }

    private static int owner(Path p) throws IOException {
        return (Integer) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS);
    }

    /** The effective uid of this process: the owner of /proc/self (proc(5)). */
    static int currentUid() {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (IOException e) {
            throw new IllegalStateException("cannot read this process's uid from /proc/self", e);
        }
    }

    /** An output path refused, with one line naming it and why. */
    public static final class RefusedException extends IOException {
        private static final long serialVersionUID = 1L;

        RefusedException(Path path, String why) {
            super(path + " " + why + "; another local user could redirect or swap the output: choose another path");
        }
    }
}
