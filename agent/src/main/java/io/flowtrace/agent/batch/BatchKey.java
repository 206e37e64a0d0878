package io.flowtrace.agent.batch;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A flow's Kafka key bytes (the canonical flow key text, docs/schemas.md) with its hash computed
 * once, and the capture interface the flow was seen on. Equal when the key bytes are equal.
 */
public final class BatchKey {
    private final byte[] bytes;
    private final int interfaceId;
    private final int hash;
    /**
     * The batcher's open batch of this flow, if it was opened with this instance: the batcher
     * checks it before its map, so a packet of a cached flow costs no hash lookup.
     */
    Object batch;

    public BatchKey(byte[] bytes, int interfaceId) {
        this.bytes = bytes;
        this.interfaceId = interfaceId;
        this.hash = Arrays.hashCode(bytes);
    }

    /** The Kafka key; not to be modified. */
    public byte[] bytes() {
        return bytes;
    }

    public int interfaceId() {
        return interfaceId;
    }

    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof BatchKey k && k.hash == hash && Arrays.equals(k.bytes, bytes);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
