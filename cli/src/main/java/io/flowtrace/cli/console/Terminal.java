package io.flowtrace.cli.console;

import com.sun.jna.Library;
import com.sun.jna.Native;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Whether a standard stream is a terminal, and how wide it is: isatty(3) and TIOCGWINSZ through
 * JNA. {@code System.console()} is no answer for progress on stderr: it is null as soon as stdin or
 * stdout is redirected ({@code analyze --json big.pcap > out}), although stderr is still the terminal.
 *
 * <p>JNA is only loaded when the stream is a character device that can be a terminal: its first use
 * unpacks its native library and runs {@code ldconfig -p}, a measured tenth of a short run's start-up
 * (docs/BENCHMARKS.md, "Start-up"), and a stream redirected to a file, a pipe or /dev/null (the usual
 * case of a script or a benchmark) cannot be a terminal, which stat(2) of /proc/self/fd/N tells.
 */
public final class Terminal {
    public static final int STDOUT = 1;
    public static final int STDERR = 2;
    /** TIOCGWINSZ (include/uapi/asm-generic/ioctls.h). */
    private static final long TIOCGWINSZ = 0x5413;

    /** The width assumed when the terminal cannot be asked. */
    public static final int DEFAULT_COLUMNS = 100;

    /** st_mode's file type bits and a character device's (sys/stat.h). */
    private static final int S_IFMT = 0170000;

    private static final int S_IFCHR = 0020000;
    /** The memory devices (/dev/null, /dev/zero, /dev/full, /dev/urandom ...): never a terminal (devices.txt). */
    private static final long MEMORY_DEVICES_MAJOR = 1;

    private Terminal() {}

    interface CLib extends Library {
        int isatty(int fd);

        int ioctl(int fd, long request, short[] winsize);
    }

    private static final class Holder {
        static final CLib LIBC = load();

        private static CLib load() {
            try {
                return Native.load("c", CLib.class);
            } catch (UnsatisfiedLinkError | RuntimeException e) {
                return null; // no libc through JNA (not Linux): no terminal features, never an error
            }
        }
    }

    public static boolean isTerminal(int fd) {
        return mayBeTerminal(Path.of("/proc/self/fd/" + fd)) && Holder.LIBC != null && Holder.LIBC.isatty(fd) == 1;
    }

    /**
     * False when what the path leads to is certainly no terminal: not a character device (a file, a
     * pipe, a socket), or a memory device such as /dev/null; true otherwise, and when it cannot be told
     * (no /proc, no such file), so that isatty(3) decides.
     */
    static boolean mayBeTerminal(Path path) {
        Map<String, Object> stat;
        try {
            stat = Files.readAttributes(path, "unix:mode,rdev");
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return true;
        }
        if (!(stat.get("mode") instanceof Integer mode) || !(stat.get("rdev") instanceof Long rdev)) {
            return true;
        }
        return (mode & S_IFMT) == S_IFCHR && major(rdev) != MEMORY_DEVICES_MAJOR;
    }

    /** A device number's major part as glibc's gnu_dev_major encodes it (sys/sysmacros.h). */
    static long major(long dev) {
        return ((dev >>> 8) & 0xfff) | ((dev >>> 32) & ~0xfffL);
    }

    /** The terminal's width in columns (struct winsize's ws_col), or 100 when it cannot be asked. */
    public static int columns(int fd) {
        if (Holder.LIBC == null) {
            return DEFAULT_COLUMNS;
        }
        short[] winsize = new short[4]; // ws_row, ws_col, ws_xpixel, ws_ypixel
        if (Holder.LIBC.ioctl(fd, TIOCGWINSZ, winsize) != 0 || winsize[1] <= 0) {
            return DEFAULT_COLUMNS;
        }
        return winsize[1];
    }
}
