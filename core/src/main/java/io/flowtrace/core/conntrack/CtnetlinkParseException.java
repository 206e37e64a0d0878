package io.flowtrace.core.conntrack;

/** A raw ctnetlink message that does not follow the wire format; {@link #offset()} is the failing byte. */
public final class CtnetlinkParseException extends Exception {
    private final int offset;

    public CtnetlinkParseException(int offset, String message) {
        // No stack trace: malformed input is data (the offset says where), and fuzzing throws ~10^5 of these.
        super(message + " (at byte " + offset + ")", null, false, false);
        this.offset = offset;
    }

    public int offset() {
        return offset;
    }
}
