package io.flowtrace.core.net;

/**
 * Identity of a bidirectional TCP flow at one vantage point: the two endpoints in canonical order
 * (lower address, then lower port, first), so both directions of a connection map to one key.
 * Which endpoint is the client is a property of the flow instance, not of the key.
 *
 * <p>Its text form {@code vantage|low|high} (the packets topic's Kafka key and the Flink job's key)
 * is written by {@link #canonical()} and read by {@link #parse}, nowhere else.
 */
public record FlowKey(VantagePoint vantage, Endpoint low, Endpoint high) {

    public static FlowKey of(VantagePoint vantage, Endpoint a, Endpoint b) {
        return a.compareTo(b) <= 0 ? new FlowKey(vantage, a, b) : new FlowKey(vantage, b, a);
    }

    /** Stable text form used as the Kafka record key and in logs: "vantage|low|high". */
    public String canonical() {
        return vantage + "|" + low + "|" + high;
    }

    /**
     * The key of its {@link #canonical()} text. Split at the last two '|': endpoints never contain
     * one, a vantage's agent id might.
     *
     * @throws IllegalArgumentException when the text is not a canonical key
     */
    public static FlowKey parse(String canonical) {
        int high = canonical.lastIndexOf('|');
        int low = vantageEnd(canonical);
        if (low < 0) {
            throw new IllegalArgumentException("not a canonical flow key (vantage|low|high): " + canonical);
        }
        FlowKey key = new FlowKey(
                VantagePoint.parse(canonical.substring(0, low)),
                Endpoint.parse(canonical.substring(low + 1, high)),
                Endpoint.parse(canonical.substring(high + 1)));
        if (key.low.compareTo(key.high) > 0) {
            throw new IllegalArgumentException("flow key endpoints not in canonical order: " + canonical);
        }
        return key;
    }

    /**
     * Where the vantage part of a {@link #canonical()} text ends (the '|' before the low endpoint), or
     * -1 when the text has fewer than two '|'; for readers that need only the vantage, without parsing
     * the endpoints (the job's watermarks, per record).
     */
    public static int vantageEnd(String canonical) {
        int high = canonical.lastIndexOf('|');
        return high > 0 ? canonical.lastIndexOf('|', high - 1) : -1;
    }
}
