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

    void write(java.io.DataOutput out) throws java.io.IOException {
        long[] scalars = {packets, dataPackets, dataBytes, uniqueBytes, retransmittedPackets, retransmittedBytes,
            reorderedPackets, networkDuplicates, windowProbes, keepAlives, lostSegments, ackedUnseen, dupAcks,
            zeroWindows, dsacks, maxInFlightBytes, firstDataNanos, lastDataNanos, stateOverflows};
        out.writeByte(scalars.length);
        for (long v : scalars) {
            Varints.write(out, v);
        }
        out.writeByte(retransmits.length);
        for (long v : retransmits) {
            Varints.write(out, v);
        }
        Varints.write(out, mss);
        Varints.write(out, maxSegmentBytes);
        rtt.write(out);
        tsRtt.write(out);
    }

    void read(java.io.DataInput in) throws java.io.IOException {
        long[] v = new long[in.readByte()];
        for (int i = 0; i < v.length; i++) {
            v[i] = Varints.read(in);
        }
        int k = 0;
        packets = v[k++];
        dataPackets = v[k++];
        dataBytes = v[k++];
        uniqueBytes = v[k++];
        retransmittedPackets = v[k++];
        retransmittedBytes = v[k++];
        reorderedPackets = v[k++];
        networkDuplicates = v[k++];
        windowProbes = v[k++];
        keepAlives = v[k++];
        lostSegments = v[k++];
        ackedUnseen = v[k++];
        dupAcks = v[k++];
        zeroWindows = v[k++];
        dsacks = v[k++];
        maxInFlightBytes = v[k++];
        firstDataNanos = v[k++];
        lastDataNanos = v[k++];
        stateOverflows = v[k];
        int classes = in.readByte();
        for (int i = 0; i < classes; i++) {
            long c = Varints.read(in);
            if (i < retransmits.length) {
                retransmits[i] = c;
            }
        }
        mss = (int) Varints.read(in);
        maxSegmentBytes = (int) Varints.read(in);
        rtt.read(in);
        tsRtt.read(in);
    }
}
