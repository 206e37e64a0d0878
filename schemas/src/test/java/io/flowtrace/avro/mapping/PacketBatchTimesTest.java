package io.flowtrace.avro.mapping;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.avro.BatchedPacket;
import io.flowtrace.avro.BatchedSackBlock;
import io.flowtrace.avro.PacketBatch;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The time a batch may move event time by comes from its valid packets only: each test batch marks
 * which of its packets it made invalid (a field outside its range, a time more than a day ahead),
 * and the expected time is the base plus the smallest offset among the others, worked out here.
 */
class PacketBatchTimesTest {
    private static final long NOW_NS = 1_800_000_000_000_000_000L;
    private static final long DAY_NS = 86_400_000_000_000L;

    @Test
    void theEarliestValidPacketOfEveryOptionalFieldCombination() {
        Random r = new Random(29);
        for (int round = 0; round < 500; round++) {
            PacketBatch b = PacketBatchHeaderTest.randomBatch(r);
            b.setBaseTimeNs(NOW_NS - (r.nextLong() & 0xff_ffff_ffffL));
            long expected = Long.MAX_VALUE;
            List<BatchedPacket> packets = new ArrayList<>();
            for (BatchedPacket p : b.getPackets()) {
                BatchedPacket q = withOptionalFields(p, r);
                boolean invalid = r.nextInt(3) == 0;
                if (invalid) {
                    breakOneField(q, r.nextInt(5));
                } else {
                    expected = Math.min(expected, b.getBaseTimeNs() + q.getTimeOffsetNs());
                }
                packets.add(q);
            }
            b.setPackets(packets);
            long want = expected == Long.MAX_VALUE ? PacketBatchTimes.NONE : expected;
            assertThat(PacketBatchTimes.earliestValidTimeNs(bytes(b), NOW_NS))
                    .as("round %d", round)
                    .isEqualTo(want);
        }
    }

    @Test
    void aBatchWhoseHeaderIsHonestButWhosePacketsAreAllInvalidHasNoTime() {
        PacketBatch b = PacketBatchHeaderTest.randomBatch(new Random(7));
        b.setBaseTimeNs(NOW_NS - 1_000_000_000L);
        for (BatchedPacket p : b.getPackets()) {
            p.setWindow(70_000); // more than 16 bits
        }
        assertThat(PacketBatchTimes.earliestValidTimeNs(bytes(b), NOW_NS)).isEqualTo(PacketBatchTimes.NONE);
    }

    @Test
    void packetsADayAheadHaveNoTimeThoughTheHeaderIsNow() {
        PacketBatch b = PacketBatchHeaderTest.randomBatch(new Random(8));
        b.setBaseTimeNs(NOW_NS);
        for (BatchedPacket p : b.getPackets()) {
            p.setTimeOffsetNs(DAY_NS + 1);
        }
        assertThat(PacketBatchTimes.earliestValidTimeNs(bytes(b), NOW_NS)).isEqualTo(PacketBatchTimes.NONE);
        b.getPackets().get(0).setTimeOffsetNs(-5);
        assertThat(PacketBatchTimes.earliestValidTimeNs(bytes(b), NOW_NS)).isEqualTo(NOW_NS - 5);
    }

    @Test
    void aRecordCutAnywhereHasNoTime() {
        PacketBatch b = PacketBatchHeaderTest.randomBatch(new Random(9));
        b.setBaseTimeNs(NOW_NS);
        byte[] whole = bytes(b);
        assertThat(PacketBatchTimes.earliestValidTimeNs(whole, NOW_NS)).isNotEqualTo(PacketBatchTimes.NONE);
        for (int cut = 0; cut < whole.length; cut++) {
            assertThat(PacketBatchTimes.earliestValidTimeNs(Arrays.copyOf(whole, cut), NOW_NS))
                    .as("cut at %d of %d", cut, whole.length)
                    .isEqualTo(PacketBatchTimes.NONE);
        }
    }

    private static BatchedPacket withOptionalFields(BatchedPacket p, Random r) {
        BatchedPacket q = BatchedPacket.newBuilder(p).build();
        q.setTimeOffsetNs(r.nextInt(2_000_000_000) - 1_000_000_000L);
        q.setIpId(r.nextBoolean() ? r.nextInt(65536) : null);
        q.setTtl(r.nextInt(256));
        q.setIpTotalLength(r.nextInt(65536));
        q.setWindow(r.nextInt(65536));
        q.setPayloadLength(r.nextInt(1500));
        q.setCapturedLength(r.nextInt(1 << 16));
        q.setWireLength(r.nextInt(1 << 16));
        q.setMss(r.nextBoolean() ? r.nextInt(65536) : null);
        q.setWindowScale(r.nextBoolean() ? r.nextInt(15) : null);
        q.setSackPermitted(r.nextBoolean());
        List<BatchedSackBlock> sacks = new ArrayList<>();
        for (int i = r.nextInt(5); i > 0; i--) {
            sacks.add(new BatchedSackBlock(r.nextInt(), r.nextInt()));
        }
        q.setSackBlocks(sacks);
        boolean ts = r.nextBoolean();
        q.setTsVal(ts ? r.nextLong() & 0xffff_ffffL : null);
        q.setTsEcr(ts ? r.nextLong() & 0xffff_ffffL : null);
        q.setTruncated(r.nextBoolean());
        return q;
    }

    /** Makes packet {@code q} invalid by one rule: the ranges are TCP's and IP's header field widths. */
    private static void breakOneField(BatchedPacket q, int which) {
        switch (which) {
            case 0 -> q.setWindow(65_536);
            case 1 -> q.setTtl(256);
            case 2 ->
                q.setSackBlocks(new ArrayList<>(List.of(
                        new BatchedSackBlock(1, 2),
                        new BatchedSackBlock(3, 4),
                        new BatchedSackBlock(5, 6),
                        new BatchedSackBlock(7, 8),
                        new BatchedSackBlock(9, 10)))); // 4 blocks fit in 40 option bytes
            case 3 -> q.setMss(65_536);
            default ->
                q.setTimeOffsetNs(DAY_NS + 2_000_000_000_000L); // base is at most 1,100 s before now: over a day ahead
        }
    }

    private static byte[] bytes(PacketBatch b) {
        try {
            ByteBuffer buf = b.toByteBuffer();
            byte[] a = new byte[buf.remaining()];
            buf.get(a);
            return a;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
