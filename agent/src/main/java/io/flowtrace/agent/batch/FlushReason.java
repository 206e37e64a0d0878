package io.flowtrace.agent.batch;

/** Why a batch left the {@link FlowBatcher}; counted by reason in the agent's metrics. */
public enum FlushReason {
    /** It held the maximum number of packets. */
    PACKETS("packets"),
    /** The next packet might have taken it past the byte limit. */
    BYTES("bytes"),
    /** Its first packet was the linger time ago. */
    LINGER("linger"),
    /** A new flow needed its place under the open-batch cap; the oldest batch went. */
    EVICTED("open-batch-cap"),
    /** The flow sent FIN or RST: its end should not wait for the linger. */
    FLOW_END("fin-rst"),
    /**
     * Time went back by more than the linger (concatenated captures, a stepped capture clock): a new
     * timeline, on which the open batches' deadlines mean nothing.
     */
    CLOCK_STEP("clock-step"),
    /** The packet cannot share the batch's header (another link type under the same flow key). */
    HEADER_CHANGE("header-change"),
    /** The publisher is about to spool: what is in memory goes to the spool first. */
    SPOOLING("spooling"),
    /** End of input or SIGTERM. */
    SHUTDOWN("shutdown");

    private final String label;

    FlushReason(String label) {
        this.label = label;
    }

    /** The metric label. */
    public String label() {
        return label;
    }
}
