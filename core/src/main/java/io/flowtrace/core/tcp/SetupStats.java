package io.flowtrace.core.tcp;

/** Connection establishment: SYN/SYN-ACK retransmissions with their gaps, setup time, handshake RTT. */
public final class SetupStats {
    /** At most this many gaps are kept; the kernel gives up after tcp_syn_retries (6) anyway. */
    public static final int MAX_GAPS = 16;

    public int synRetransmits;
    public int synAckRetransmits;
    public final long[] synRetransmitGapsNanos = new long[MAX_GAPS];
    public int synRetransmitGapCount;
    public final long[] synAckRetransmitGapsNanos = new long[MAX_GAPS];
    public int synAckRetransmitGapCount;
    /** First SYN to the ACK that completed the handshake; -1 if it never completed in the capture. */
    public long setupNanos = -1;
    /** (SYN-ACK − last SYN) + (handshake ACK − last SYN-ACK): the full path RTT at any vantage; -1 if unknown. */
    public long handshakeRttNanos = -1;
    public long firstSynNanos = -1;
    public long lastSynNanos = -1;
    public long firstSynAckNanos = -1;
    public long lastSynAckNanos = -1;
    public boolean established;
}
