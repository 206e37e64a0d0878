package io.flowtrace.core.net;

import io.flowtrace.core.net.Endpoint;

/**
 * Identity of a bidirectional TCP flow at one vantage point: the two endpoints in canonical order
 * (lower address, then lower port, first), so both directions of a connection map to one key.
 * Which endpoint is the client is a property of the flow instance, not of the key.
 */
public record FlowKey(String vantage, Endpoint low, Endpoint high) {

    public static FlowKey of(String vantage, Endpoint a, Endpoint b) {
        return a.compareTo(b) <= 0 ? new FlowKey(vantage, a, b) : new FlowKey(vantage, b, a);
    }

    /** Stable text form used as the Kafka record key and in logs: "vantage|low|high". */
    public String canonical() {
        return vantage + "|" + low + "|" + high;
    }
}
