package io.flowtrace.demo;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One demo per user at a time: an OS file lock on {@code demo.lock} in the user's private directory
 * ({@link RuntimeDir}: 0700, checked; the file opened without following a symbolic link).
 * The ports are ephemeral, so two demos would not clash on ports; the lock exists so that a second
 * demo says plainly that one is already running (and with --keep, still holding its services)
 * instead of doubling the load. The kernel drops the lock when the process dies, even on SIGKILL.
 */
final class DemoLock implements AutoCloseable {
    private final FileChannel channel;
    private final FileLock lock;

    private DemoLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /** {@code -Dflowtrace.demo.lock=FILE} overrides it (tests, or two deliberate demos side by side). */
    static Path defaultPath() {
        String override = System.getProperty("flowtrace.demo.lock");
        if (override != null && !override.isBlank()) {
            return Path.of(override);
        }
        return RuntimeDir.path().resolve("demo.lock");
    }

    /** Takes the lock or throws {@link DemoBusyException} saying who holds it. */
    static DemoLock acquire(Path file) throws IOException {
        if (System.getProperty("flowtrace.demo.lock") == null) {
            RuntimeDir.open(file.getParent());
        }
        FileChannel channel = FileChannel.open(
                file,
                StandardOpenOption.CREATE,
                StandardOpenOption.READ,
                StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS);
        FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null; // held by this very JVM (a test)
        }
        if (lock == null) {
            String holder = "";
            try {
                holder = Files.readString(file, StandardCharsets.UTF_8).trim();
            } catch (IOException e) {
                // the message below is still clear without the pid
            }
            channel.close();
            throw new DemoBusyException("another flowtrace demo is already running"
                    + (holder.isEmpty() ? "" : " (pid " + holder + ")") + "; it holds " + file
                    + ". Wait for it to finish, or stop it with Ctrl-C (a demo started with --keep runs until then).");
        }
        channel.truncate(0);
        channel.write(
                ByteBuffer.wrap(Long.toString(ProcessHandle.current().pid()).getBytes(StandardCharsets.UTF_8)), 0);
        channel.force(false);
        return new DemoLock(channel, lock);
    }

    @Override
    public void close() throws IOException {
        try {
            if (lock.isValid()) {
                channel.truncate(0);
                lock.release();
            }
        } finally {
            channel.close();
        }
    }

    static final class DemoBusyException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        DemoBusyException(String message) {
            super(message);
        }
    }
}
