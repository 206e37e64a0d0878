package io.flowtrace.cli.console;

/**
 * The exit statuses every command shares (FlowtraceCli's "Exit codes" in --help): here, below the
 * commands, so that a command's package need not reach back up to FlowtraceCli for them.
 */
public final class ExitCodes {
    /** An input could not be read, or only in part; or the command failed. */
    public static final int INPUT = 1;
    /** An invalid command line (unknown option, bad option value). */
    public static final int USAGE = 2;

    private ExitCodes() {}
}
