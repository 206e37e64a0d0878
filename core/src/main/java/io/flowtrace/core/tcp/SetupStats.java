package io.flowtrace.core.tcp;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

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

    void write(DataOutput out) throws IOException {
        Varints.write(out, synRetransmits);
        Varints.write(out, synAckRetransmits);
        out.writeByte(synRetransmitGapCount);
        for (int i = 0; i < synRetransmitGapCount; i++) {
            Varints.write(out, synRetransmitGapsNanos[i]);
        }
        out.writeByte(synAckRetransmitGapCount);
        for (int i = 0; i < synAckRetransmitGapCount; i++) {
            Varints.write(out, synAckRetransmitGapsNanos[i]);
        }
        Varints.write(out, setupNanos);
        Varints.write(out, handshakeRttNanos);
        Varints.write(out, firstSynNanos);
        Varints.write(out, lastSynNanos);
        Varints.write(out, firstSynAckNanos);
        Varints.write(out, lastSynAckNanos);
        out.writeBoolean(established);
    }

    void read(DataInput in) throws IOException {
        synRetransmits = (int) Varints.read(in);
        synAckRetransmits = (int) Varints.read(in);
        synRetransmitGapCount = Math.min(in.readByte(), MAX_GAPS);
        for (int i = 0; i < synRetransmitGapCount; i++) {
            synRetransmitGapsNanos[i] = Varints.read(in);
        }
        synAckRetransmitGapCount = Math.min(in.readByte(), MAX_GAPS);
        for (int i = 0; i < synAckRetransmitGapCount; i++) {
            synAckRetransmitGapsNanos[i] = Varints.read(in);
        }
        setupNanos = Varints.read(in);
        handshakeRttNanos = Varints.read(in);
        firstSynNanos = Varints.read(in);
        lastSynNanos = Varints.read(in);
        firstSynAckNanos = Varints.read(in);
        lastSynAckNanos = Varints.read(in);
        established = in.readBoolean();
    }
}
