package io.flowtrace.cli;

import com.sun.jna.Library;
import com.sun.jna.Native;

/**
 * Whether a standard stream is a terminal, and how wide it is: isatty(3) and TIOCGWINSZ through
 * JNA. {@code System.console()} is no answer for progress on stderr: it is null as soon as stdin or
 * stdout is redirected ({@code analyze --json big.pcap > out}), although stderr is still the terminal.
 */
public final class Terminal {
    public static final int STDOUT = 1;
    public static final int STDERR = 2;
    /** TIOCGWINSZ (include/uapi/asm-generic/ioctls.h). */
    private static final long TIOCGWINSZ = 0x5413;

    /** The width assumed when the terminal cannot be asked. */
    public static final int DEFAULT_COLUMNS = 100;

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
        return Holder.LIBC != null && Holder.LIBC.isatty(fd) == 1;
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
