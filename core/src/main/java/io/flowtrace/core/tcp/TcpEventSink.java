package io.flowtrace.core.tcp;

/** Receives the analyser's events as they happen. */
@FunctionalInterface
public interface TcpEventSink {
    void accept(TcpFlowEvent event);

    TcpEventSink NONE = event -> {};
}
