package io.flowtrace.core.analysis;

import io.flowtrace.core.flow.CanonicalKey;
import io.flowtrace.core.pcap.DecodedPacket;
import java.util.ArrayList;
import java.util.List;

/**
 * Up to {@link #CAPACITY} decoded TCP packets in capture order, handed from the reader thread to
 * the analysing thread(s) and recycled through a free list, so the steady state allocates nothing.
 * A sharded run also notes, on the reader, which shard owns each packet and after which packets a
 * sweep for idle flows is due, and collects each shard's output for the merge.
 */
final class DecodedBatch {
    /**
     * 4,096 rather than 1,024: every batch can wake each shard, the merging thread and the reader
     * once, and on a two-core virtual machine those wake-ups cost more than the queues' work. At
     * 4.67 M packets, 1,024 → 4,096 took CPU 3.46 → 3.23 s and wall 2.34 → 1.98 s (medians of 6
     * interleaved runs); 8,192 and 16,384 gained nothing more (docs/BENCHMARKS.md, "Batches of
     * 4,096 packets, and what did not help").
     */
    static final int CAPACITY = 4096;

    final DecodedPacket[] packets = new DecodedPacket[CAPACITY];
    /**
     * Each packet's canonical key, computed by the reader of a sharded run when it picks the
     * packet's shard, so the shard's flow table does not compute it again.
     */
    final CanonicalKey[] keys = new CanonicalKey[CAPACITY];

    int size;
    /** The end of the input: no batch follows. */
    boolean last;
    /** The reader failed: the flows still held are not reported (the run throws). */
    boolean failed;

    /** Capture-order index of {@code packets[0]} among the capture's TCP packets. */
    long firstIndex;
    /** members[s][0..memberCount[s]): the positions of shard s's packets, ascending. */
    final int[][] members;

    final int[] memberCount;
    /** Sweeps due after the packets at these positions, at these capture times. */
    final int[] sweepPosition = new int[CAPACITY];

    final long[] sweepNow = new long[CAPACITY];
    int sweeps;
    /** outputs.get(s): what shard s reported while analysing this batch, in its order. */
    final List<List<ShardOutput.Emitted>> outputs;

    DecodedBatch(int shards) {
        for (int i = 0; i < CAPACITY; i++) {
            packets[i] = new DecodedPacket();
            keys[i] = new CanonicalKey();
        }
        members = shards > 1 ? new int[shards][CAPACITY] : new int[0][];
        memberCount = new int[shards > 1 ? shards : 0];
        outputs = new ArrayList<>(shards);
        for (int s = 0; s < shards; s++) {
            outputs.add(new ArrayList<>());
        }
    }

    static DecodedBatch end(int shards, boolean failed) {
        DecodedBatch b = new DecodedBatch(shards);
        b.last = true;
        b.failed = failed;
        return b;
    }
}
