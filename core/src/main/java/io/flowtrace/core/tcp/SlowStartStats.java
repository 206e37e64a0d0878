package io.flowtrace.core.tcp;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/** The slow-start result of one direction: the {@code slow_start.*} and {@code cwnd_stuck_rounds} fields. */
public final class SlowStartStats {
    public SlowStartExitCause exitReason = SlowStartExitCause.NONE;
    /** Capture time of the exit, -1 while in slow start. */
    public long exitNanos = -1;

    public long exitCwndBytes = -1;
    public long minRttNanos = -1;
    /** Highest per-round delivery rate, bytes per second. */
    public double maxDeliveryRateBytesPerSecond;
    /** Largest per-round flight after the exit (the cwnd the path later allowed). */
    public long maxCwndAfterExitBytes;

    public long maxCwndBytes;
    public int rounds;
    public int cwndStuckRounds;
    /**
     * Rounds of 2–6 segments that were not a stuck window, by what limited them: the peer's receive
     * window, or the application / send buffer (the window was not full at the round's end, an ACK
     * was not answered at once, or the pipe sat empty).
     */
    public int rwndLimitedSmallRounds;

    public int appLimitedSmallRounds;
    /** Limits seen while in slow start (reported when no exit happened). */
    public boolean rwndLimitedSeen;

    public boolean appLimitedSeen;

    public long bdpBytes() {
        return minRttNanos <= 0 ? -1 : (long) (maxDeliveryRateBytesPerSecond * minRttNanos / 1e9);
    }

    /** Exit cwnd below half of the later max cwnd or of the BDP (docs/design.md, Premature exits). */
    public boolean premature() {
        if (exitCwndBytes <= 0) {
            return false;
        }
        long bdp = bdpBytes();
        return exitCwndBytes * 2 < maxCwndAfterExitBytes || (bdp > 0 && exitCwndBytes * 2 < bdp);
    }

    void write(DataOutput out) throws IOException {
        out.writeByte(exitReason.ordinal());
        Varints.write(out, exitNanos);
        Varints.write(out, exitCwndBytes);
        Varints.write(out, minRttNanos);
        out.writeDouble(maxDeliveryRateBytesPerSecond);
        Varints.write(out, maxCwndAfterExitBytes);
        Varints.write(out, maxCwndBytes);
        Varints.write(out, rounds);
        Varints.write(out, cwndStuckRounds);
        out.writeByte((rwndLimitedSeen ? 1 : 0) | (appLimitedSeen ? 2 : 0));
    }

    void writeV3(DataOutput out) throws IOException {
        Varints.write(out, rwndLimitedSmallRounds);
        Varints.write(out, appLimitedSmallRounds);
    }

    void readV3(DataInput in) throws IOException {
        rwndLimitedSmallRounds = (int) Varints.read(in);
        appLimitedSmallRounds = (int) Varints.read(in);
    }

    void read(DataInput in) throws IOException {
        exitReason = SlowStartExitCause.values()[in.readByte()];
        exitNanos = Varints.read(in);
        exitCwndBytes = Varints.read(in);
        minRttNanos = Varints.read(in);
        maxDeliveryRateBytesPerSecond = in.readDouble();
        maxCwndAfterExitBytes = Varints.read(in);
        maxCwndBytes = Varints.read(in);
        rounds = (int) Varints.read(in);
        cwndStuckRounds = (int) Varints.read(in);
        int bits = in.readByte();
        rwndLimitedSeen = (bits & 1) != 0;
        appLimitedSeen = (bits & 2) != 0;
    }
}
