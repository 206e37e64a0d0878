package io.flowtrace.core.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The unACKed-segment ring (SegmentQueue) on its edges, each a mutant of the tcp-retransmissions group
 * that survived the suite (docs/metrics.md, "Mutation scores"). The expected values are counted by hand
 * from the segments written here: bytes SACKed are those of held segments marked SACKed, no more.
 */
class SegmentQueueTest {

    /** The smallest bound (AnalyzerConfig: 1 to 32,768 segments) holds one segment and drops the older. */
    @Test
    void aLimitOfOneSegmentKeepsTheNewest() {
        SegmentQueue q = new SegmentQueue();
        q.limit(1);
        q.append(0, 100, 0, 1);
        q.append(100, 200, 1, 2);
        assertThat(q.size()).isEqualTo(1);
        assertThat(q.start(0)).isEqualTo(100);
        assertThat(q.overflowDrops()).isEqualTo(1);
    }

    /**
     * A SACK block beginning exactly at the first held segment (the tap missed the segment at the
     * cumulative ACK, the receiver SACKs what came after it) marks that segment: 200 bytes.
     */
    @Test
    void aSackBlockStartingAtTheFirstHeldSegmentMarksIt() {
        SegmentQueue q = new SegmentQueue();
        q.append(100, 200, 0, 1);
        q.append(200, 300, 1, 2);
        q.sack(100, 300);
        assertThat(q.sackedBytes()).isEqualTo(200);
        assertThat(q.sacked(0)).isTrue();
    }

    /**
     * A cumulative ACK inside a segment trims it (RFC 9293: the ACK covers every byte below it): ACK 150
     * of [100, 200) leaves [150, 200), and of a SACKed one, 50 SACKed bytes. Removing the segments
     * below an ACK leaves the SACK marks of those still held: [100, 200) SACKed stays after ACK 100.
     */
    @Test
    void aCumulativeAckTrimsTheSegmentItCutsAndKeepsTheSackOfTheRest() {
        SegmentQueue q = new SegmentQueue();
        q.append(0, 100, 0, 1);
        q.append(100, 200, 1, 2);
        q.append(200, 300, 2, 3);
        q.sack(100, 200);
        q.ackTo(100);
        assertThat(q.size()).isEqualTo(2);
        assertThat(q.sackedBytes()).isEqualTo(100);
        assertThat(q.sacked(0)).isTrue(); // [100, 200), inside the block
        assertThat(q.sacked(1)).isFalse(); // [200, 300), outside it
        q.ackTo(150);
        assertThat(q.start(0)).isEqualTo(150);
        assertThat(q.sackedBytes()).isEqualTo(50);
        q.ackTo(250);
        assertThat(q.start(0)).isEqualTo(250);
        assertThat(q.end(0)).isEqualTo(300);
        assertThat(q.sackedBytes()).isZero();
    }

    /**
     * A ring that has wrapped: [100, 200) was SACKed, ACKed and removed (its slot keeps stale marks);
     * three more segments are then ACKed at once. Nothing is held, so nothing is SACKed.
     */
    @Test
    void aQueueEmptiedByTheAckHoldsNoSackedBytes() {
        SegmentQueue q = new SegmentQueue();
        q.append(0, 100, 0, 1);
        q.append(100, 200, 1, 2);
        q.sack(100, 200);
        q.ackTo(100);
        q.ackTo(200);
        q.append(200, 300, 2, 3);
        q.append(300, 400, 3, 4);
        q.append(400, 500, 4, 5);
        q.ackTo(500);
        assertThat(q.size()).isZero();
        assertThat(q.sackedBytes()).isZero();
    }
}
