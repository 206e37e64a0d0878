package io.flowtrace.core.tcp;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * Connection setup (RFC 9293 §3.5): first SYN to the ACK of the SYN-ACK, with SYN and SYN-ACK
 * retransmissions and the gaps between them, so the exponential backoff (1 s, 2 s, 4 s ... from
 * TCP_TIMEOUT_INIT in Linux) is visible (docs/design.md, OpenVPN setup).
 */
final class HandshakeTracker {
    private final SetupStats setup;
    private long clientIsn = -1;
    private long serverIsn = -1;
    private long firstSynAckAfterLastSyn = -1;

    HandshakeTracker(SetupStats setup) {
        this.setup = setup;
    }

    /** A SYN (without ACK) from the client. Returns true when it is a retransmission. */
    boolean onSyn(long seq32, long nanos) {
        boolean retransmit = setup.firstSynNanos >= 0;
        if (retransmit) {
            setup.synRetransmits++;
            if (setup.synRetransmitGapCount < SetupStats.MAX_GAPS) {
                setup.synRetransmitGapsNanos[setup.synRetransmitGapCount++] = nanos - setup.lastSynNanos;
            }
        } else {
            setup.firstSynNanos = nanos;
        }
        clientIsn = seq32;
        setup.lastSynNanos = nanos;
        firstSynAckAfterLastSyn = -1;
        return retransmit;
    }

    /** A SYN-ACK from the server. Returns true when it is a retransmission. */
    boolean onSynAck(long seq32, long nanos) {
        boolean retransmit = setup.firstSynAckNanos >= 0 && seq32 == serverIsn;
        if (retransmit) {
            setup.synAckRetransmits++;
            if (setup.synAckRetransmitGapCount < SetupStats.MAX_GAPS) {
                setup.synAckRetransmitGapsNanos[setup.synAckRetransmitGapCount++] = nanos - setup.lastSynAckNanos;
            }
        } else if (setup.firstSynAckNanos < 0) {
            setup.firstSynAckNanos = nanos;
        }
        serverIsn = seq32;
        setup.lastSynAckNanos = nanos;
        if (firstSynAckAfterLastSyn < 0) {
            firstSynAckAfterLastSyn = nanos;
        }
        return retransmit;
    }

    /** An ACK from the client; completes the handshake when it acknowledges the server's SYN. */
    void onClientAck(long ack32, long nanos) {
        if (setup.established || serverIsn < 0 || ack32 != ((serverIsn + 1) & 0xffffffffL)) {
            return;
        }
        setup.established = true;
        if (setup.firstSynNanos >= 0) {
            setup.setupNanos = nanos - setup.firstSynNanos;
            if (firstSynAckAfterLastSyn >= 0) {
                setup.handshakeRttNanos =
                        (firstSynAckAfterLastSyn - setup.lastSynNanos) + (nanos - setup.lastSynAckNanos);
            }
        }
    }

    long clientIsn() {
        return clientIsn;
    }

    void write(DataOutput out) throws IOException {
        Varints.write(out, clientIsn);
        Varints.write(out, serverIsn);
        Varints.write(out, firstSynAckAfterLastSyn);
    }

    void read(DataInput in) throws IOException {
        clientIsn = Varints.read(in);
        serverIsn = Varints.read(in);
        firstSynAckAfterLastSyn = Varints.read(in);
    }
}
