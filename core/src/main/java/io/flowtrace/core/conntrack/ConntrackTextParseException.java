package io.flowtrace.core.conntrack;

/** A conntrack(8) output line that could not be read; {@link #lineNumber()} is 1-based. */
public final class ConntrackTextParseException extends Exception {
    private final long lineNumber;

    public ConntrackTextParseException(long lineNumber, String message) {
        super("line " + lineNumber + ": " + message);
        this.lineNumber = lineNumber;
    }

    public long lineNumber() {
        return lineNumber;
    }
}
