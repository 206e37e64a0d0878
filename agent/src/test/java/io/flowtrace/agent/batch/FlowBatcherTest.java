package io.flowtrace.agent.batch;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.core.pcap.DecodedPacket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The batcher's flush rules on literal packets. Each test packet is identified by its sequence
 * number; the test contents count 20 bytes per packet plus 8 per SACK block, so that the byte
 * limit can be checked by hand.
 */
class FlowBatcherTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final BatchKey A = key("a");
    private static final BatchKey B = key("b");
    private static final BatchKey C = key("c");

    /** What left the batcher: flow, sequence numbers in order, reason. */
    record Flushed(String flow, List<Long> seqs, FlushReason reason) {}

    /** Test contents: the sequence numbers, 20 bytes a packet + 8 a SACK block. */
    static final class Recorded implements BatchContents {
        final List<Long> seqs = new ArrayList<>();
        int bytes;

        @Override
        public void open(BatchKey key, DecodedPacket first) {
            seqs.clear();
            bytes = 0;
        }

        @Override
        public int add(DecodedPacket p) {
            seqs.add(p.seq);
            bytes += 20 + 8 * p.sackCount;
            return bytes;
        }

        @Override
        public int maxPacketBytes() {
            return 20 + 8 * DecodedPacket.MAX_SACK_BLOCKS;
        }
    }

    private final List<Flushed> flushed = new ArrayList<>();

    private FlowBatcher<Recorded> batcher(int maxPackets, int maxBytes, long lingerNanos, int maxOpen) {
        return new FlowBatcher<>(
                new BatchLimits(maxPackets, maxBytes, lingerNanos, maxOpen),
                Recorded::new,
                (key, c, packets, reason) -> {
                    assertThat(c.seqs).hasSize(packets);
                    flushed.add(new Flushed(key.toString(), List.copyOf(c.seqs), reason));
                });
    }

    @Test
    void findsAFlowsOpenBatchThroughAnotherInstanceOfItsKey() throws Exception {
        // the agent's key cache hands out a new key instance for a flow after a slot collision
        FlowBatcher<Recorded> b = batcher(16, 64 * 1024, 100 * MS, 16);
        BatchKey first = key("d");
        BatchKey again = key("d");
        b.add(first, packet(1, 0), 0);
        b.add(again, packet(2, 0), MS);
        b.add(first, packet(3, 0), 2 * MS);
        assertThat(b.openBatches()).isEqualTo(1);
        b.flushAll(FlushReason.SHUTDOWN);
        assertThat(flushed).containsExactly(new Flushed("d", List.of(1L, 2L, 3L), FlushReason.SHUTDOWN));
    }

    @Test
    void keepsTwoBatchersOpenBatchesOfOneKeyInstanceApart() throws Exception {
        FlowBatcher<Recorded> one = batcher(16, 64 * 1024, 100 * MS, 16);
        FlowBatcher<Recorded> two = batcher(16, 64 * 1024, 100 * MS, 16);
        BatchKey k = key("e");
        one.add(k, packet(1, 0), 0);
        two.add(k, packet(2, 0), 0);
        one.add(k, packet(3, 0), MS);
        two.flushAll(FlushReason.SHUTDOWN);
        one.flushAll(FlushReason.SHUTDOWN);
        assertThat(flushed)
                .containsExactly(
                        new Flushed("e", List.of(2L), FlushReason.SHUTDOWN),
                        new Flushed("e", List.of(1L, 3L), FlushReason.SHUTDOWN));
    }

    @Test
    void flushesAFlowAtThePacketLimitKeepingCaptureOrder() throws Exception {
        FlowBatcher<Recorded> b = batcher(3, 64 * 1024, 100 * MS, 16);
        for (int i = 1; i <= 7; i++) {
            b.add(A, packet(i, 0), 0);
        }
        assertThat(b.openPackets()).isEqualTo(1);
        b.flushAll(FlushReason.SHUTDOWN);
        assertThat(flushed)
                .containsExactly(
                        new Flushed("a", List.of(1L, 2L, 3L), FlushReason.PACKETS),
                        new Flushed("a", List.of(4L, 5L, 6L), FlushReason.PACKETS),
                        new Flushed("a", List.of(7L), FlushReason.SHUTDOWN));
        assertThat(b.openBatches()).isZero();
        assertThat(b.openPackets()).isZero();
    }

    @Test
    void flushesWhenTheNextPacketCouldPassTheByteLimit() throws Exception {
        // 1024-byte limit, 20 bytes a packet, a packet may add up to 20 + 4 * 8 = 52: after 48
        // packets (960 B) one more still fits (1012 <= 1024); after 49 (980 B) it might not (1032).
        FlowBatcher<Recorded> b = batcher(1000, 1024, 100 * MS, 16);
        for (int i = 1; i <= 50; i++) {
            b.add(A, packet(i, 0), 0);
        }
        assertThat(flushed).hasSize(1);
        assertThat(flushed.get(0).seqs()).hasSize(49).startsWith(1L).endsWith(49L);
        assertThat(flushed.get(0).reason()).isEqualTo(FlushReason.BYTES);
        assertThat(b.openPackets()).isEqualTo(1);
    }

    @Test
    void sackBlocksCountTowardsTheByteLimit() throws Exception {
        // Packets with 4 SACK blocks are 52 bytes: 18 of them are 936 B, 936 + 52 = 988 fits;
        // 19 are 988 B, 988 + 52 = 1040 does not.
        FlowBatcher<Recorded> b = batcher(1000, 1024, 100 * MS, 16);
        for (int i = 1; i <= 19; i++) {
            b.add(A, packet(i, 0, 4), 0);
        }
        assertThat(flushed).hasSize(1);
        assertThat(flushed.get(0).seqs()).hasSize(19);
    }

    @Test
    void flushesABatchItsLingerAfterItsFirstPacketOnTheNextPacketOrTick() throws Exception {
        FlowBatcher<Recorded> b = batcher(100, 64 * 1024, 10 * MS, 16);
        b.add(A, packet(1, 0), 0);
        b.add(B, packet(100, 0), 3 * MS);
        b.add(A, packet(2, 0), 5 * MS);
        assertThat(flushed).isEmpty();
        // t = 10 ms: A's first packet came at 0, so A goes before C's packet is added; B (3 ms) stays.
        b.add(C, packet(1000, 0), 10 * MS);
        assertThat(flushed).containsExactly(new Flushed("a", List.of(1L, 2L), FlushReason.LINGER));
        b.expire(12 * MS);
        assertThat(flushed).hasSize(1);
        b.expire(13 * MS);
        assertThat(flushed).last().isEqualTo(new Flushed("b", List.of(100L), FlushReason.LINGER));
        assertThat(b.openBatches()).isEqualTo(1);
    }

    @Test
    void aClockGoingBackALittleNeitherFlushesNorExtendsABatch() throws Exception {
        FlowBatcher<Recorded> b = batcher(100, 64 * 1024, 10 * MS, 16);
        b.add(A, packet(1, 0), 50 * MS);
        // 5 ms earlier (interleaved pcapng interfaces), less than the 10 ms linger: A's deadline
        // stays 60 ms, and B opens on the batcher's time, 50 ms, so its deadline is 60 ms too.
        b.add(A, packet(2, 0), 45 * MS);
        b.add(B, packet(100, 0), 45 * MS);
        b.expire(59 * MS);
        assertThat(flushed).isEmpty();
        b.expire(60 * MS);
        assertThat(flushed)
                .containsExactly(
                        new Flushed("a", List.of(1L, 2L), FlushReason.LINGER),
                        new Flushed("b", List.of(100L), FlushReason.LINGER));
    }

    @Test
    void aClockGoingBackMoreThanTheLingerFlushesEverythingAndStartsOver() throws Exception {
        FlowBatcher<Recorded> b = batcher(100, 64 * 1024, 10 * MS, 16);
        b.add(A, packet(1, 0), 1000 * MS);
        b.add(B, packet(100, 0), 1001 * MS);
        // A second capture concatenated behind the first, 900 ms earlier: both batches go, and the
        // new packet's batch lingers on the new timeline (flushed at 110 ms, not at 1011 ms).
        b.add(A, packet(2, 0), 100 * MS);
        assertThat(flushed)
                .containsExactly(
                        new Flushed("a", List.of(1L), FlushReason.CLOCK_STEP),
                        new Flushed("b", List.of(100L), FlushReason.CLOCK_STEP));
        b.expire(109 * MS);
        assertThat(flushed).hasSize(2);
        b.expire(110 * MS);
        assertThat(flushed).last().isEqualTo(new Flushed("a", List.of(2L), FlushReason.LINGER));
    }

    @Test
    void evictsTheOldestBatchWhenANewFlowWouldPassTheOpenBatchCap() throws Exception {
        FlowBatcher<Recorded> b = batcher(100, 64 * 1024, 100 * MS, 2);
        b.add(A, packet(1, 0), 0);
        b.add(B, packet(100, 0), 1);
        b.add(A, packet(2, 0), 2);
        b.add(C, packet(1000, 0), 3);
        assertThat(flushed).containsExactly(new Flushed("a", List.of(1L, 2L), FlushReason.EVICTED));
        assertThat(b.openBatches()).isEqualTo(2);
        b.add(A, packet(3, 0), 4);
        assertThat(flushed).last().isEqualTo(new Flushed("b", List.of(100L), FlushReason.EVICTED));
        b.flushAll(FlushReason.SHUTDOWN);
        assertThat(flushed).extracting(Flushed::flow).containsExactly("a", "b", "c", "a");
    }

    @Test
    void finAndRstFlushTheirFlowsBatchOnly() throws Exception {
        FlowBatcher<Recorded> b = batcher(100, 64 * 1024, 100 * MS, 16);
        b.add(A, packet(1, 0), 0);
        b.add(B, packet(100, 0), 0);
        b.add(A, packet(2, DecodedPacket.FIN | DecodedPacket.ACK), 0);
        assertThat(flushed).containsExactly(new Flushed("a", List.of(1L, 2L), FlushReason.FLOW_END));
        b.add(A, packet(3, DecodedPacket.ACK), 0);
        b.add(B, packet(101, DecodedPacket.RST), 0);
        assertThat(flushed).last().isEqualTo(new Flushed("b", List.of(100L, 101L), FlushReason.FLOW_END));
        assertThat(b.openBatches()).isEqualTo(1);
        assertThat(b.openPackets()).isEqualTo(1);
    }

    @Test
    void shutdownFlushesEveryOpenBatchOldestFirst() throws Exception {
        FlowBatcher<Recorded> b = batcher(100, 64 * 1024, 100 * MS, 16);
        b.add(C, packet(1000, 0), 0);
        b.add(A, packet(1, 0), 1);
        b.add(B, packet(100, 0), 2);
        b.add(C, packet(1001, 0), 3);
        b.flushAll(FlushReason.SHUTDOWN);
        assertThat(flushed)
                .containsExactly(
                        new Flushed("c", List.of(1000L, 1001L), FlushReason.SHUTDOWN),
                        new Flushed("a", List.of(1L), FlushReason.SHUTDOWN),
                        new Flushed("b", List.of(100L), FlushReason.SHUTDOWN));
        assertThat(b.openBatches()).isZero();
    }

    @Test
    void interleavedFlowsKeepTheirOwnOrderAcrossRecycledBatches() throws Exception {
        FlowBatcher<Recorded> b = batcher(2, 64 * 1024, 100 * MS, 16);
        for (int i = 0; i < 4; i++) {
            b.add(A, packet(i, 0), i);
            b.add(B, packet(100 + i, 0), i);
        }
        assertThat(flushed)
                .containsExactly(
                        new Flushed("a", List.of(0L, 1L), FlushReason.PACKETS),
                        new Flushed("b", List.of(100L, 101L), FlushReason.PACKETS),
                        new Flushed("a", List.of(2L, 3L), FlushReason.PACKETS),
                        new Flushed("b", List.of(102L, 103L), FlushReason.PACKETS));
    }

    @Test
    void aKeyWithEqualBytesIsTheSameFlow() throws Exception {
        FlowBatcher<Recorded> b = batcher(100, 64 * 1024, 100 * MS, 16);
        b.add(A, packet(1, 0), 0);
        b.add(key("a"), packet(2, 0), 0);
        b.flushAll(FlushReason.SHUTDOWN);
        assertThat(flushed).containsExactly(new Flushed("a", List.of(1L, 2L), FlushReason.SHUTDOWN));
    }

    private static BatchKey key(String flow) {
        return new BatchKey(flow.getBytes(StandardCharsets.UTF_8), 0);
    }

    private static DecodedPacket packet(long seq, int flags) {
        return packet(seq, flags, 0);
    }

    private static DecodedPacket packet(long seq, int flags, int sackBlocks) {
        DecodedPacket p = new DecodedPacket();
        p.seq = seq;
        p.flags = flags;
        p.sackCount = sackBlocks;
        return p;
    }
}
