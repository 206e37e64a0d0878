package io.flowtrace.core.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * The stuck-window rule on its edges, round by round, with an MSS of 1,000 bytes: a round counts
 * toward a plateau when its largest flight is 2-6 segments (2,000-6,000 B), it ended with the window
 * full (flight at its end at most ½ MSS below the largest: 2 x end + MSS >= 2 x largest), data was
 * waiting, no retransmission, not the receive window, and the flight is at least the largest round
 * since the last loss less one MSS; rounds within ½ MSS of the plateau's first continue it; the 3rd
 * such round adds 3 stuck rounds and each later one 1. Expected counts are worked out per test.
 */
class CwndStuckRuleTest {
    private static final long MSS = 1000;

    private final CwndStuckRule rule = new CwndStuckRule();
    private final SlowStartStats stats = new SlowStartStats();

    private void full(long flight) {
        rule.onRoundEnd(stats, MSS, flight, flight, true, false, false);
    }

    /** A new rule's figures after three rounds with data waiting: largest flight {@code max}, {@code atEnd} before the ending ACK. */
    private static SlowStartStats afterThreeRounds(long max, long atEnd) {
        CwndStuckRule r = new CwndStuckRule();
        SlowStartStats s = new SlowStartStats();
        for (int i = 0; i < 3; i++) {
            r.onRoundEnd(s, MSS, max, atEnd, true, false, false);
        }
        return s;
    }

    /** 2,000 and 6,000 B are 2 and 6 segments: three full rounds of either are 3 stuck rounds; 1,999 and 6,001 B never are. */
    @Test
    void twoToSixSegmentsAreSmallEnough() {
        for (long flight : new long[] {2000, 6000}) {
            assertThat(afterThreeRounds(flight, flight).cwndStuckRounds)
                    .as("%d B", flight)
                    .isEqualTo(3);
        }
        for (long flight : new long[] {1999, 6001}) {
            SlowStartStats s = afterThreeRounds(flight, flight);
            assertThat(s.cwndStuckRounds).as("%d B", flight).isZero();
            assertThat(s.appLimitedSmallRounds).as("%d B", flight).isZero();
        }
    }

    /**
     * Largest 4,000 B, at the end 3,500 B (exactly ½ MSS less): 2 x 3,500 + 1,000 = 8,000 >= 8,000,
     * full; three such rounds are stuck. At 3,499 B the window was not full: three small rounds the
     * application held (3), none stuck.
     */
    @Test
    void theWindowIsFullDownToHalfAnMssBelowTheLargestFlight() {
        assertThat(afterThreeRounds(4000, 3500).cwndStuckRounds).isEqualTo(3);

        SlowStartStats s = afterThreeRounds(4000, 3499);
        assertThat(s.cwndStuckRounds).isZero();
        assertThat(s.appLimitedSmallRounds).isEqualTo(3);
    }

    /**
     * After a round of 6,000 B (the application's: no data waiting, 1 app-limited round), cwnd is at
     * least 6,000 B: rounds of 5,000 B (5,000 + 1,000 >= 6,000) can be stuck (3 after 3 rounds), rounds
     * of 4,999 B cannot (3 more app-limited rounds).
     */
    @Test
    void aRoundBelowTheLargestSinceLossLessOneMssIsNotTheWindow() {
        rule.onRoundEnd(stats, MSS, 6000, 6000, false, false, false);
        for (int i = 0; i < 3; i++) {
            full(5000);
        }
        assertThat(stats.cwndStuckRounds).isEqualTo(3);
        assertThat(stats.appLimitedSmallRounds).isEqualTo(1);

        CwndStuckRule r = new CwndStuckRule();
        SlowStartStats s = new SlowStartStats();
        r.onRoundEnd(s, MSS, 6000, 6000, false, false, false);
        for (int i = 0; i < 3; i++) {
            r.onRoundEnd(s, MSS, 4999, 4999, true, false, false);
        }
        assertThat(s.cwndStuckRounds).isZero();
        assertThat(s.appLimitedSmallRounds).isEqualTo(4);
    }

    /**
     * Rounds of 4,000, 4,500 and 3,500 B are one plateau (each within ½ MSS of 4,000: 2 x 500 <= 1,000):
     * 3 stuck; two more at 4,000 add 1 each: 5. 4,000 then 4,501 B (2 x 501 > 1,000) start a new plateau
     * at 4,501: after 4,000, 4,501, 4,501 nothing is stuck yet, the next 4,501 makes 3.
     */
    @Test
    void roundsWithinHalfAnMssOfThePlateauContinueIt() {
        for (long flight : new long[] {4000, 4500, 3500}) {
            rule.onRoundEnd(stats, MSS, flight, flight, true, false, false);
        }
        assertThat(stats.cwndStuckRounds).isEqualTo(3);
        full(4000);
        full(4000);
        assertThat(stats.cwndStuckRounds).isEqualTo(5);

        CwndStuckRule r = new CwndStuckRule();
        SlowStartStats s = new SlowStartStats();
        for (long flight : new long[] {4000, 4501, 4501}) {
            r.onRoundEnd(s, MSS, flight, flight, true, false, false);
        }
        assertThat(s.cwndStuckRounds).isZero();
        r.onRoundEnd(s, MSS, 4501, 4501, true, false, false);
        assertThat(s.cwndStuckRounds).isEqualTo(3);
    }

    /**
     * A confirmed plateau (3 rounds at 4,000 B: 3) survives a pause of the application as large as
     * the plateau + 1 MSS (5,000 B, no data waiting): the next full round at 4,000 counts at once (4).
     * A pause of 5,001 B (cwnd grew) or with a retransmission ends the confirmation: the next full
     * round, 4,500 B (on the plateau, and within one MSS of 5,001), starts a new run (still 3).
     */
    @Test
    void aConfirmedPlateauCountsAtOnceAfterAPauseUpToOneMssLarger() {
        for (int i = 0; i < 3; i++) {
            full(4000);
        }
        rule.onRoundEnd(stats, MSS, 5000, 5000, false, false, false);
        full(4000);
        assertThat(stats.cwndStuckRounds).isEqualTo(4);

        for (boolean grew : new boolean[] {true, false}) {
            CwndStuckRule r = new CwndStuckRule();
            SlowStartStats s = new SlowStartStats();
            for (int i = 0; i < 3; i++) {
                r.onRoundEnd(s, MSS, 4000, 4000, true, false, false);
            }
            r.onRoundEnd(s, MSS, grew ? 5001 : 4000, 4000, false, false, !grew);
            r.onRoundEnd(s, MSS, 4500, 4500, true, false, false);
            assertThat(s.cwndStuckRounds).as(grew ? "grew" : "retransmitted").isEqualTo(3);
        }
    }

    /**
     * Only a run of 3 confirms a plateau: 2 full rounds at 4,000 B, a pause of the application
     * (3,000 B, no data waiting), then full rounds at 4,000 B start a new run: nothing is stuck until
     * its third (3). A confirmed plateau outlasts two pauses in a row: 3 full rounds (3), two pauses,
     * and the next full round counts at once (4).
     */
    @Test
    void onlyARunOfThreeConfirmsAPlateauAndItOutlastsSeveralPauses() {
        full(4000);
        full(4000);
        rule.onRoundEnd(stats, MSS, 3000, 3000, false, false, false);
        full(4000);
        assertThat(stats.cwndStuckRounds).isZero();
        full(4000);
        full(4000);
        assertThat(stats.cwndStuckRounds).isEqualTo(3);

        CwndStuckRule r = new CwndStuckRule();
        SlowStartStats s = new SlowStartStats();
        for (int i = 0; i < 3; i++) {
            r.onRoundEnd(s, MSS, 4000, 4000, true, false, false);
        }
        r.onRoundEnd(s, MSS, 3000, 3000, false, false, false);
        r.onRoundEnd(s, MSS, 3000, 3000, false, false, false);
        r.onRoundEnd(s, MSS, 4000, 4000, true, false, false);
        assertThat(s.cwndStuckRounds).isEqualTo(4);
    }

    /**
     * A new plateau starts at the round that starts it: 4,000 B (run 1), a pause (the run ends
     * unconfirmed), 4,500 B starts a plateau at 4,500 B (not at the old 4,000), so 3,600 B, more
     * than ½ MSS below it (2 x 900 > 1,000), starts another: after two rounds of 3,600 B nothing is
     * stuck, the third makes 3.
     */
    @Test
    void aNewPlateauStartsAtTheRoundThatStartsIt() {
        full(4000);
        rule.onRoundEnd(stats, MSS, 3000, 3000, false, false, false);
        full(4500);
        full(3600);
        full(3600);
        assertThat(stats.cwndStuckRounds).isZero();
        full(3600);
        assertThat(stats.cwndStuckRounds).isEqualTo(3);
    }

    /**
     * Small rounds that fail the test are counted by their limit: the receive window (1), else the
     * application (1); a round with a retransmission by neither. An MSS of 0 (unknown) decides nothing.
     */
    @Test
    void smallRoundsAreCountedByTheirLimitAndAnUnknownMssDecidesNothing() {
        rule.onRoundEnd(stats, MSS, 3000, 3000, true, true, false);
        rule.onRoundEnd(stats, MSS, 3000, 3000, false, false, false);
        rule.onRoundEnd(stats, MSS, 3000, 3000, true, false, true);
        assertThat(stats.rwndLimitedSmallRounds).isEqualTo(1);
        assertThat(stats.appLimitedSmallRounds).isEqualTo(1);
        assertThat(stats.cwndStuckRounds).isZero();

        CwndStuckRule r = new CwndStuckRule();
        SlowStartStats s = new SlowStartStats();
        for (int i = 0; i < 4; i++) {
            r.onRoundEnd(s, 0, 0, 0, true, false, false);
        }
        assertThat(s.cwndStuckRounds).isZero();
        assertThat(s.appLimitedSmallRounds).isZero();
    }

    /** Saved after two full rounds at 4,000 B and a 6,000 B reference, the third restored round completes the run (3). */
    @Test
    void aRoundTripKeepsTheRunAndTheReference() throws IOException {
        rule.onRoundEnd(stats, MSS, 6000, 6000, false, false, false);
        full(5000);
        full(5000);
        CwndStuckRule back = new CwndStuckRule();
        back.read(StateBytes.written(rule::write));
        back.onRoundEnd(stats, MSS, 5000, 5000, true, false, false);
        assertThat(stats.cwndStuckRounds).isEqualTo(3);
        back.onRoundEnd(stats, MSS, 4999, 4999, true, false, false);
        assertThat(stats.cwndStuckRounds).isEqualTo(3); // below the restored 6,000 B reference less one MSS
    }
}
