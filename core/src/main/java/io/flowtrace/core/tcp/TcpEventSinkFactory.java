package io.flowtrace.core.tcp;

import io.flowtrace.core.net.FlowKey;

/** Gives each new flow instance the sink its events go to (so events can carry the flow's identity). */
@FunctionalInterface
public interface TcpEventSinkFactory {
    TcpEventSink forFlow(FlowKey key, long instance);

    TcpEventSinkFactory NONE = (key, instance) -> TcpEventSink.NONE;
}
