package io.flowtrace.agent.conntrack;

import io.flowtrace.core.conntrack.ConntrackMessage;

/** Where a conntrack source delivers what it reads. Malformed input and ENOBUFS are data, not failures. */
public interface ConntrackEventSink {
    void event(ConntrackMessage event);

    /** A message or line that could not be parsed; reading continues. */
    default void malformed(Exception error) {}

    /** recv() returned ENOBUFS: the kernel dropped events for this socket (netlink_overrun()). */
    default void enobufs(long totalSoFar) {}
}
