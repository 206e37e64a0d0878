package io.flowtrace.agent.batch;

import io.flowtrace.core.pcap.DecodedPacket;

/**
 * The packets of one open batch, in whatever form the publisher wants them (the agent encodes
 * each packet into the batch's Avro bytes as it arrives). Reused: {@link #open} starts a new
 * batch in an old instance.
 */
public interface BatchContents {
    /** Starts a batch for {@code key} whose first packet will be {@code first}. */
    void open(BatchKey key, DecodedPacket first);

    /**
     * Whether {@code packet} can join this batch (a batch header holds per-batch fields such as the
     * link type); when not, the batch is flushed and the packet starts a new one.
     */
    default boolean fits(DecodedPacket packet) {
        return true;
    }

    /** Adds one packet (after {@link #open}, the first one too); returns the batch's encoded bytes so far. */
    int add(DecodedPacket packet);

    /** An upper bound of what {@link #add} can add to the encoded bytes for any one packet. */
    int maxPacketBytes();
}
