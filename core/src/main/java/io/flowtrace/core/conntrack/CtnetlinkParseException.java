package io.flowtrace.core.conntrack;

/** A raw ctnetlink message that does not follow the wire format; {@link #offset()} is the failing byte. */
public final class CtnetlinkParseException extends Exception {
    private final int offset;

    public CtnetlinkParseException(int offset, String message) {
        super(message + " (at byte " + offset + ")");
        this.offset = offset;
    }

    public int offset() {
        return offset;
    }
}
