package io.flowtrace.agent.batch;

import io.flowtrace.core.pcap.DecodedPacket;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.function.Supplier;

/**
 * Groups packets into per-flow batches: at most one open batch per flow key, so one flow's
 * packets stay in capture order and its batches leave in order (to one Kafka key, hence one
 * partition). A batch leaves through the {@link Sink} when it is full ({@link BatchLimits}), when
 * its linger has passed, when the flow sends FIN or RST, when its place is needed for a new flow
 * under the open-batch cap (oldest first), and on {@link #flushAll}.
 *
 * <p>Time is whatever the caller passes as {@code now} (capture time for a file replay, wall clock
 * for a live capture: docs/agent.md); the batcher keeps the largest value seen, so a timestamp going
 * back a little (interleaved pcapng interfaces) never re-opens a deadline, and one going back by more
 * than the linger flushes everything and starts over ({@link FlushReason#CLOCK_STEP}). Batches open in time order, so the oldest open batch is also
 * the first to reach its linger: both expiry and eviction take the head of one list.
 *
 * <p>Pure (no Kafka, no clock, no threads) and not thread-safe: the publisher serialises calls.
 * In steady state nothing is allocated: batch objects and their contents are recycled.
 */
public final class FlowBatcher<C extends BatchContents> {
    /** Receives each batch as it leaves; {@code contents} is reused after the call returns. */
    @FunctionalInterface
    public interface Sink<C> {
        void flush(BatchKey key, C contents, int packets, FlushReason reason) throws IOException;
    }

    private static final int FLOW_END_FLAGS = DecodedPacket.FIN | DecodedPacket.RST;

    private static final class Open<C> {
        final C contents;
        /** The batcher this batch belongs to: a key's pointer may be from another batcher's run. */
        final Object owner;

        BatchKey key;
        int packets;
        int bytes;
        long deadline;
        Open<C> prev;
        Open<C> next;

        Open(C contents, Object owner) {
            this.contents = contents;
            this.owner = owner;
        }
    }

    private final BatchLimits limits;
    private final Supplier<C> newContents;
    private final Sink<C> sink;
    private final HashMap<BatchKey, Open<C>> byKey;
    private final ArrayDeque<Open<C>> free = new ArrayDeque<>();
    /** Open batches, oldest first. */
    private Open<C> head;

    private Open<C> tail;
    private long clock = Long.MIN_VALUE;
    private long openPackets;

    public FlowBatcher(BatchLimits limits, Supplier<C> newContents, Sink<C> sink) {
        this.limits = limits;
        this.newContents = newContents;
        this.sink = sink;
        this.byKey = new HashMap<>(Math.min(1 << 16, limits.maxOpenBatches() * 2));
    }

    /** Adds a packet of flow {@code key} at time {@code now}, first flushing what {@code now} expires. */
    public void add(BatchKey key, DecodedPacket packet, long now) throws IOException {
        expire(now);
        Open<C> b = openBatchOf(key);
        if (b != null && !b.contents.fits(packet)) {
            flush(b, FlushReason.HEADER_CHANGE);
            b = null;
        }
        if (b == null) {
            b = open(key, packet);
        }
        b.bytes = b.contents.add(packet);
        b.packets++;
        openPackets++;
        if (b.packets >= limits.maxPackets()) {
            flush(b, FlushReason.PACKETS);
        } else if ((packet.flags & FLOW_END_FLAGS) != 0) {
            flush(b, FlushReason.FLOW_END);
        } else if (b.bytes + b.contents.maxPacketBytes() > limits.maxBytes()) {
            flush(b, FlushReason.BYTES);
        }
    }

    /**
     * Flushes every batch whose linger has passed at {@code now}. A {@code now} more than the linger
     * behind the latest time seen starts a new timeline: every open batch is flushed first.
     */
    public void expire(long now) throws IOException {
        if (now > clock) {
            clock = now;
        } else if (now < clock - limits.lingerNanos() && clock != Long.MIN_VALUE) {
            flushAll(FlushReason.CLOCK_STEP);
            clock = now;
        }
        while (head != null && head.deadline <= clock) {
            flush(head, FlushReason.LINGER);
        }
    }

    /** Flushes every open batch, oldest first. */
    public void flushAll(FlushReason reason) throws IOException {
        while (head != null) {
            flush(head, reason);
        }
    }

    public int openBatches() {
        return byKey.size();
    }

    /** Packets held in open batches. */
    public long openPackets() {
        return openPackets;
    }

    /**
     * The open batch of {@code key}'s flow, or null: through the key's own pointer when the batch
     * was opened with this key instance and has not left since (a recycled batch has another key),
     * else by the key's bytes (another instance of the same flow's key, after a key cache collision).
     */
    @SuppressWarnings("unchecked")
    private Open<C> openBatchOf(BatchKey key) {
        Object o = key.batch;
        if (o instanceof Open<?> b && b.owner == this && b.key == key) {
            return (Open<C>) o;
        }
        return byKey.get(key);
    }

    private Open<C> open(BatchKey key, DecodedPacket first) throws IOException {
        if (byKey.size() >= limits.maxOpenBatches()) {
            flush(head, FlushReason.EVICTED);
        }
        Open<C> b = free.poll();
        if (b == null) {
            b = new Open<>(newContents.get(), this);
        }
        b.key = key;
        b.packets = 0;
        b.bytes = 0;
        b.deadline = clock + limits.lingerNanos();
        b.contents.open(key, first);
        byKey.put(key, b);
        key.batch = b;
        b.prev = tail;
        b.next = null;
        if (tail != null) {
            tail.next = b;
        } else {
            head = b;
        }
        tail = b;
        return b;
    }

    private void flush(Open<C> b, FlushReason reason) throws IOException {
        if (b.prev != null) {
            b.prev.next = b.next;
        } else {
            head = b.next;
        }
        if (b.next != null) {
            b.next.prev = b.prev;
        } else {
            tail = b.prev;
        }
        b.prev = null;
        b.next = null;
        byKey.remove(b.key);
        openPackets -= b.packets;
        try {
            sink.flush(b.key, b.contents, b.packets, reason);
        } finally {
            b.key = null;
            free.push(b);
        }
    }
}
