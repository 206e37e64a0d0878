package io.flowtrace.core.tcp;

/**
 * What one side of a connection sent, and what happened to it: the per-direction half of the
 * {@code analyze --json} contract (docs/metrics.md defines every field). Counters that describe
 * ACKs (dup ACKs, zero windows) count the ACKs this side sent.
 */
public final class DirectionStats {
    public long packets;
    public long dataPackets;
    public long dataBytes;
    /** Bytes of sequence space covered at least once (first transmissions and hole fills). */
    public long uniqueBytes;
    public long retransmittedPackets;
    public long retransmittedBytes;
    public final long[] retransmits = new long[RetransmissionClass.values().length];
    public long reorderedPackets;
    public long networkDuplicates;
    public long windowProbes;
    public long keepAlives;
    public long lostSegments;
    /** ACKs for data this capture never saw (tshark's "ACKed unseen segment"), counted on this side's data. */
    public long ackedUnseen;
    public long dupAcks;
    public long zeroWindows;
    /** ACKs carrying a D-SACK (RFC 2883): the receiver got a segment twice. Counted on the side that sent them. */
    public long dsacks;
    public final RunningStats rtt = new RunningStats();
    public final RunningStats tsRtt = new RunningStats();
    public long maxInFlightBytes;
    /** MSS this side announced in its SYN, -1 if unseen. */
    public int mss = -1;
    public int maxSegmentBytes;
    public long firstDataNanos = -1;
    public long lastDataNanos = -1;
    /** Segments dropped from bounded state (should stay 0; non-zero means the window outgrew the cap). */
    public long stateOverflows;

    public long retransmits(RetransmissionClass c) {
        return retransmits[c.ordinal()];
    }
}
