package io.flowtrace.core.tcp;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * What one side of a connection sent, and what happened to it: the per-direction half of the
 * {@code analyze --json} contract (docs/metrics.md defines every field). Counters that describe
 * ACKs (dup ACKs, zero windows) count the ACKs this side sent.
 */
public final class TcpDirectionStats {
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
    /** Segments with RST this side sent. */
    public long resets;

    public long dupAcks;
    public long zeroWindows;
    /** ACKs carrying a D-SACK (RFC 2883): the receiver got a segment twice. Counted on the side that sent them. */
    public long dsacks;
    /**
     * Smallest and largest receive window this side advertised, in bytes (AdvertisedWindow: scaled as
     * the handshake agreed, unscaled without it; resets excluded); -1 before its first packet.
     */
    public long windowMinBytes = -1;

    public long windowMaxBytes = -1;

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

    /** Data segment sizes: 1-99, 100-535, 536-1199 bytes, 1200 up to the MSS, above the MSS (TSO/GSO/GRO). */
    public static final String[] SEGMENT_SIZE_BUCKETS = {"lt100", "lt536", "lt1200", "le_mss", "above_mss"};

    public final long[] segmentSizes = new long[SEGMENT_SIZE_BUCKETS.length];

    /** The longest RTO backoff schedule: RTO retransmissions of one sequence number, and the gaps. */
    public static final int MAX_BACKOFF_GAPS = 16;

    public int rtoMaxRetries;
    public final long[] rtoGapsNanos = new long[MAX_BACKOFF_GAPS];
    public int rtoGapCount;

    /** Mean ratio of successive gaps of that schedule (2 for exponential backoff); NaN with fewer than 2 gaps. */
    public double rtoGrowthRatio() {
        if (rtoGapCount < 2) {
            return Double.NaN;
        }
        double sum = 0;
        int n = 0;
        for (int i = 1; i < rtoGapCount; i++) {
            if (rtoGapsNanos[i - 1] > 0) {
                sum += (double) rtoGapsNanos[i] / rtoGapsNanos[i - 1];
                n++;
            }
        }
        return n == 0 ? Double.NaN : sum / n;
    }

    public long retransmits(RetransmissionClass c) {
        return retransmits[c.ordinal()];
    }

    void write(DataOutput out) throws IOException {
        long[] scalars = {
            packets,
            dataPackets,
            dataBytes,
            uniqueBytes,
            retransmittedPackets,
            retransmittedBytes,
            reorderedPackets,
            networkDuplicates,
            windowProbes,
            keepAlives,
            lostSegments,
            ackedUnseen,
            dupAcks,
            zeroWindows,
            dsacks,
            maxInFlightBytes,
            firstDataNanos,
            lastDataNanos,
            stateOverflows,
            windowMinBytes,
            windowMaxBytes,
            resets
        };
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
        out.writeByte(segmentSizes.length);
        for (long v : segmentSizes) {
            Varints.write(out, v);
        }
        Varints.write(out, rtoMaxRetries);
        out.writeByte(rtoGapCount);
        for (int i = 0; i < rtoGapCount; i++) {
            Varints.write(out, rtoGapsNanos[i]);
        }
    }

    void read(DataInput in) throws IOException {
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
        stateOverflows = v[k++];
        // the window figures came later: a state written before them has 19 scalars (none seen yet)
        windowMinBytes = v.length > k ? v[k++] : -1;
        windowMaxBytes = v.length > k ? v[k++] : -1;
        // resets came later still: a state written before them has 21 scalars (an older build reads the first 21)
        resets = v.length > k ? v[k] : 0;
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
        int buckets = in.readByte();
        for (int i = 0; i < buckets; i++) {
            long count = Varints.read(in);
            if (i < segmentSizes.length) {
                segmentSizes[i] = count;
            }
        }
        rtoMaxRetries = (int) Varints.read(in);
        rtoGapCount = Math.min(in.readByte(), MAX_BACKOFF_GAPS);
        for (int i = 0; i < rtoGapCount; i++) {
            rtoGapsNanos[i] = Varints.read(in);
        }
    }
}
