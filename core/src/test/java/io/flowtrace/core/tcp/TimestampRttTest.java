package io.flowtrace.core.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.DataInputStream;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * The timestamp RTT rule (RFC 7323 §3.2, §4: the peer echoes the TSval it last received in TSecr; an RTT
 * sample is the time from the first packet that carried a TSval to the first packet echoing it) on
 * hand-made TSval/TSecr sequences. TSvals are 32-bit serial numbers (RFC 1982 §3.2): a is before b
 * when 0 &lt; (b - a) mod 2^32 &lt; 2^31; exactly 2^31 apart is neither. Times are nanoseconds; each
 * expected sample is the echo's time minus the first sighting's, worked out in the comment.
 */
class TimestampRttTest {
    private final TimestampRtt ts = new TimestampRtt();

    /** TSval 100 first at 1,000 and again at 2,000 (same clock tick): the echo at 5,000 is 5,000 - 1,000. */
    @Test
    void theFirstPacketWithATsvalStartsTheSampleAndOnlyTheFirstEchoEndsOne() {
        ts.sent(100, 1_000);
        ts.sent(100, 2_000);
        assertThat(ts.echoed(100, 5_000)).isEqualTo(4_000);
        assertThat(ts.echoed(100, 6_000)).isEqualTo(-1); // a later echo of the same TSval (a delayed ACK)
    }

    /**
     * A TSval older than the newest (a retransmission or reordered packet) is not a first sighting:
     * 200 at 1,000, then 199 at 1,500. The echo of 199 finds 200 pending, which is after it, and
     * gives nothing; 200's echo at 3,000 is 2,000.
     */
    @Test
    void anOlderTsvalIsNotRemembered() {
        ts.sent(200, 1_000);
        ts.sent(199, 1_500);
        assertThat(ts.echoed(199, 2_500)).isEqualTo(-1);
        assertThat(ts.echoed(200, 3_000)).isEqualTo(2_000);
    }

    /**
     * TSval 0 is a value like any other: 0 at 1,000, then 0xffffffff (one before 0) at 2,000, which
     * is older and forgotten, then 0 again at 3,000, not a new sighting. 0's echo at 5,000 is 4,000
     * and a second echo of 0 gives nothing.
     */
    @Test
    void aTsvalOfZeroIsTheNewestLikeAnyOther() {
        ts.sent(0, 1_000);
        ts.sent(0xffffffffL, 2_000);
        ts.sent(0, 3_000);
        assertThat(ts.echoed(0, 5_000)).isEqualTo(4_000);
        assertThat(ts.echoed(0, 6_000)).isEqualTo(-1);
    }

    /**
     * Across the wrap: 0xfffffffe at 1,000, then 1 at 2,000 (3 after it). The echo of 1 at 5,000
     * passes over 0xfffffffe, which is before 1 and can no longer be echoed first: 3,000; its own
     * late echo then gives nothing, and neither does a second echo of 1: nothing is pending.
     */
    @Test
    void tsvalsWrapAt2To32() {
        ts.sent(0xfffffffeL, 1_000);
        ts.sent(1, 2_000);
        assertThat(ts.echoed(1, 5_000)).isEqualTo(3_000);
        assertThat(ts.echoed(0xfffffffeL, 6_000)).isEqualTo(-1);
        assertThat(ts.echoed(1, 7_000)).isEqualTo(-1);
    }

    /**
     * On the serial-order edges: 2^31 - 1 after 0 is newer (remembered; its echo at 4,000 is 2,000);
     * 2^31 after a pending value is not after it, so 0x80000000 first sighted at 2,000 after 0 is
     * not remembered, and an echo of 0x80000000 does not pass over a pending 0 (0's echo at 3,000
     * is still 2,000).
     */
    @Test
    void valuesExactlyHalfTheSpaceApartAreNeitherBeforeNorAfter() {
        ts.sent(0, 1_000);
        ts.sent(0x7fffffffL, 2_000);
        assertThat(ts.echoed(0x7fffffffL, 4_000)).isEqualTo(2_000);

        TimestampRtt half = new TimestampRtt();
        half.sent(0, 1_000);
        half.sent(0x80000000L, 2_000);
        assertThat(half.echoed(0x80000000L, 2_500)).isEqualTo(-1);
        assertThat(half.echoed(0, 3_000)).isEqualTo(2_000);
    }

    /**
     * An echo of a value before every pending one leaves them pending (9 while 10 waits); an echo in
     * the same nanosecond as the send is a sample of 0; an echo stamped before its send (a capture
     * clock stepping back) is no sample.
     */
    @Test
    void anEchoBeforeEveryPendingValueKeepsThemAndTimeGoingBackGivesNoSample() {
        ts.sent(10, 1_000);
        assertThat(ts.echoed(9, 2_000)).isEqualTo(-1);
        assertThat(ts.echoed(10, 1_000)).isZero();

        ts.sent(11, 5_000);
        assertThat(ts.echoed(11, 4_999)).isEqualTo(-1);
    }

    /**
     * The ring grows from 4 with its head in the middle: TSvals 1-4 at v x 1,000; 2's echo at 10,000
     * (8,000) drops 1 and moves the head to the third slot; 5, 6 fill the wrapped slots and 7 grows
     * the ring. Each later echo at 30,000 is 30,000 - v x 1,000.
     */
    @Test
    void theRingGrowsWithItsHeadAnywhere() {
        for (long v = 1; v <= 4; v++) {
            ts.sent(v, v * 1_000);
        }
        assertThat(ts.echoed(2, 10_000)).isEqualTo(8_000);
        for (long v = 5; v <= 7; v++) {
            ts.sent(v, v * 1_000);
        }
        for (long v = 3; v <= 7; v++) {
            assertThat(ts.echoed(v, 30_000)).as("TSval %d", v).isEqualTo(30_000 - v * 1_000);
        }
    }

    /**
     * At most 256 values wait: the 257th forgets the oldest. TSvals 1-257 at v x 1,000: 1 is gone (its
     * echo finds 2 pending, after it), 2's echo at 1,000,000 is 998,000, 3's 997,000 (the 257th took
     * the forgotten value's slot, not another's) and 257's 743,000.
     */
    @Test
    void theTwoHundredFiftySeventhPendingValueForgetsTheOldest() {
        for (long v = 1; v <= 257; v++) {
            ts.sent(v, v * 1_000);
        }
        assertThat(ts.echoed(1, 1_000_000)).isEqualTo(-1);
        assertThat(ts.echoed(2, 1_000_000)).isEqualTo(998_000);
        assertThat(ts.echoed(3, 1_000_000)).isEqualTo(997_000);
        assertThat(ts.echoed(257, 1_000_000)).isEqualTo(743_000);
    }

    /**
     * Saved and restored (flow state), the pending values, their times and the newest TSval are
     * kept: a wrapped ring of 3-6 (as above), restored, still ignores a repeat of 6 and gives 3's
     * echo at 20,000 as 17,000; a full ring of 256 restores with room for 256, so a 257th value
     * forgets the oldest (1); an empty one restores too.
     */
    @Test
    void aRoundTripKeepsThePendingValues() throws IOException {
        for (long v = 1; v <= 4; v++) {
            ts.sent(v, v * 1_000);
        }
        ts.echoed(2, 10_000);
        ts.sent(5, 5_000);
        ts.sent(6, 6_000);
        TimestampRtt back = roundTrip(ts);
        back.sent(6, 9_000);
        back.sent(7, 9_500);
        assertThat(back.echoed(3, 20_000)).isEqualTo(17_000);
        assertThat(back.echoed(6, 20_000)).isEqualTo(14_000);
        assertThat(back.echoed(7, 20_000)).isEqualTo(10_500);

        TimestampRtt full = new TimestampRtt();
        for (long v = 1; v <= 256; v++) {
            full.sent(v, v * 1_000);
        }
        TimestampRtt fullBack = roundTrip(full);
        fullBack.sent(257, 257_000);
        assertThat(fullBack.echoed(1, 1_000_000)).isEqualTo(-1);
        assertThat(fullBack.echoed(2, 1_000_000)).isEqualTo(998_000);
        assertThat(fullBack.echoed(257, 1_000_000)).isEqualTo(743_000);

        TimestampRtt emptyBack = roundTrip(new TimestampRtt());
        emptyBack.sent(0, 1_000);
        assertThat(emptyBack.echoed(0, 2_000)).isEqualTo(1_000);
    }

    /** A saved state claiming more than 256 pending values (or fewer than none) is corrupt. */
    @Test
    void moreThanTwoHundredFiftySixPendingValuesAreCorrupt() throws IOException {
        for (int n : new int[] {257, -1}) {
            DataInputStream in = StateBytes.written(out -> {
                Varints.write(out, 5);
                out.writeShort(n);
            });
            assertThatThrownBy(() -> new TimestampRtt().read(in))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining(n + " pending timestamps");
        }
    }

    private static TimestampRtt roundTrip(TimestampRtt t) throws IOException {
        TimestampRtt back = new TimestampRtt();
        back.read(StateBytes.written(t::write));
        return back;
    }
}
