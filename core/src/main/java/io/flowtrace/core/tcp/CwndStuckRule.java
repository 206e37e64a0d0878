package io.flowtrace.core.tcp;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * Seed 004's stuck window, from what a tap sees of a window-limited sender, one round at a time: the
 * round ended with the window full (flight just before the ending ACK = the round's largest, ± ½
 * MSS), data was waiting (every advancing ACK answered by a new segment at once, the pipe never
 * empty), no retransmission, not the receive window; the flight is 2–6 segments and not below the
 * largest round since the last loss less one segment (cwnd only shrinks on loss; a tail-loss probe
 * may put one new segment beyond it, tcp_send_loss_probe); and the same plateau holds for
 * {@link #RUN} rounds; once it has, a later round filling the same plateau counts at once, until a
 * loss or a larger round shows cwnd moved. Slow start can be stuck too: a window pinned by a route metric never leaves
 * it (testdata/tcp/cwnd-locked). Small rounds failing the test are counted by their limit: the
 * receive window, or the application / send buffer. A sender limited by its own CPU looks the same
 * as a stuck window from the wire; docs/metrics.md says so.
 */
final class CwndStuckRule {
    /** Seed 004: BBR's cwnd stuck "around 6 segments" without GSO. */
    static final int STUCK_SEGMENTS = 6;
    /**
     * Linux never lets cwnd fall below 2 outside an RTO (tcp_cwnd_reduction, CUBIC/Reno ssthresh ≥ 2):
     * a plateau of one segment is the sender's own pace, not a window.
     */
    private static final int MIN_SEGMENTS = 2;
    /** Rounds at one plateau before they count as stuck: one or two equal rounds happen by chance. */
    private static final int RUN = 3;
    /** plateauRun between runs after a confirmed plateau (state of older builds never holds it). */
    private static final int CONFIRMED = -1;

    /** Largest round flight since the last loss retransmission: cwnd did not shrink below it since. */
    private long referenceFlight;
    /**
     * Consecutive cwnd-limited small rounds at one plateau, and that plateau's flight; {@link #CONFIRMED}
     * between runs when the last plateau had been confirmed by a full run and nothing since has shown
     * cwnd moving off it.
     */
    private int plateauRun;

    private long plateauFlight;

    /**
     * @param maxFlight the round's largest flight
     * @param flightAtEnd the flight just before the ACK that ended the round
     * @param dataWaiting every advancing ACK of the round was answered at once and the pipe never sat empty
     */
    void onRoundEnd(
            SlowStartStats stats,
            long mss,
            long maxFlight,
            long flightAtEnd,
            boolean dataWaiting,
            boolean rwndLimited,
            boolean retransmitted) {
        if (mss <= 0) {
            return;
        }
        boolean small = maxFlight >= MIN_SEGMENTS * mss && maxFlight <= STUCK_SEGMENTS * mss;
        boolean windowFull = 2 * flightAtEnd + mss >= 2 * maxFlight;
        boolean cwndLimited =
                windowFull && dataWaiting && !rwndLimited && !retransmitted && maxFlight + mss >= referenceFlight;
        boolean atPlateau = 2 * Math.abs(maxFlight - plateauFlight) <= mss;
        if (small && cwndLimited) {
            if (plateauRun == CONFIRMED && atPlateau) {
                // the confirmed window is full again after a pause of the application (a round that
                // did not fill it): cwnd only moves on loss or growth, both of which end the
                // confirmation, so this round is stuck at once (testdata/tcp/cwnd-locked: runs of one
                // or two rounds between such pauses)
                plateauRun = RUN;
            }
            if (plateauRun > 0 && atPlateau) {
                plateauRun++;
            } else {
                plateauRun = 1;
                plateauFlight = maxFlight;
            }
            if (plateauRun == RUN) {
                stats.cwndStuckRounds += RUN;
            } else if (plateauRun > RUN) {
                stats.cwndStuckRounds++;
            }
        } else {
            // a retransmission (cwnd may shrink) or a round beyond the plateau (cwnd grew; a tail-loss
            // probe's one segment beyond cwnd does not count) ends the confirmation
            boolean confirmed = (plateauRun >= RUN || plateauRun == CONFIRMED)
                    && !retransmitted
                    && maxFlight <= plateauFlight + mss;
            plateauRun = confirmed ? CONFIRMED : 0;
            if (small && rwndLimited) {
                stats.rwndLimitedSmallRounds++;
            } else if (small && !retransmitted) {
                stats.appLimitedSmallRounds++;
            }
        }
        referenceFlight = retransmitted ? 0 : Math.max(referenceFlight, maxFlight);
    }

    void write(DataOutput out) throws IOException {
        Varints.write(out, referenceFlight);
        Varints.write(out, plateauRun);
        Varints.write(out, plateauFlight);
    }

    void read(DataInput in) throws IOException {
        referenceFlight = Varints.read(in);
        plateauRun = (int) Varints.read(in);
        plateauFlight = Varints.read(in);
    }
}
