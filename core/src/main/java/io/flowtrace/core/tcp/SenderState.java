package io.flowtrace.core.tcp;

import io.flowtrace.core.net.SequenceUnwrapper;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * Everything the analyser tracks about one side as a data sender: its sequence space, what it has
 * sent and not yet had ACKed, what the peer ACKed and SACKed, and where it stands in loss recovery.
 * Sequence values here are 64-bit offsets relative to the ISN (the SYN is at 0, data from 1).
 */
final class SenderState {
    enum Recovery {
        OPEN,
        RECOVERY,
        LOSS
    }

    final TcpDirectionStats stats = new TcpDirectionStats();
    final SequenceUnwrapper seq = new SequenceUnwrapper();
    final SegmentQueue unacked = new SegmentQueue();
    final TimestampRtt timestamps = new TimestampRtt();
    final RoundTracker rounds = new RoundTracker();

    /** MSS the peer announced (what this side may send), -1 if unseen; and whether this side sends timestamps. */
    int peerMss = -1;

    boolean usesTimestamps;

    /** The RTO backoff schedule in progress: its sequence number, attempts and gaps. */
    long backoffSeq = -1;

    int backoffAttempts;
    long lastRtoNanos = -1;
    final long[] backoffGaps = new long[TcpDirectionStats.MAX_BACKOFF_GAPS];
    int backoffGapCount;

    /** Unwrapped value of the ISN (or of the first sequence number seen, without a SYN). */
    long isn;

    boolean synSeen;
    /** Relative offset one past the highest byte (or SYN/FIN) sent: snd_nxt as seen. */
    long nextSeq;

    boolean sentAnything;
    /** Highest cumulative ACK from the peer (relative to this side's ISN). */
    long ackedUpTo;

    boolean ackSeen;
    long lastAckAdvanceNanos;
    /** Time of the last ACK of any kind from the peer. */
    long lastPeerAckNanos = -1;
    /** Duplicate ACKs the peer sent for {@link #ackedUpTo}, and when the last came. */
    int peerDupAcks;

    long lastPeerDupAckNanos;
    /** The peer's last ACK carried SACK blocks above the cumulative ACK. */
    boolean peerSacking;
    /** When the peer first signalled a hole (dup ACK or SACK) since the cumulative ACK last moved; -1 if not. */
    long firstLossSignalNanos = -1;
    /** Receive window the peer advertised, in bytes (scaled once both SYNs agreed on scaling). */
    long peerWindowBytes = -1;

    /** Own window scale from this side's SYN; -1 if it did not offer one. */
    int windowScale = -1;

    boolean scalingAgreed;

    /** Loss-recovery episode inferred from what the sender does (mirrors tcp_set_ca_state). */
    Recovery recovery = Recovery.OPEN;
    /** The episode ends when the cumulative ACK reaches this (RFC 6582 "recover"). */
    long recoveryPoint;

    long lastRetransmitNanos = -1;

    /** For tshark-compatible dup-ACK detection on the ACKs this side sends. */
    long lastRawAck = -1;

    int lastRawWindow = -1;
    long rawNextSeq = -1;
    boolean lastSegmentKeepAlive;
    boolean lastSegmentZeroWindowProbe;

    long finSeq = -1;

    /**
     * Whether this sender numbers IPv4 ids sequentially (Linux does per socket for DF traffic; so
     * do Windows and the BSDs with a global counter): then a segment's id tells when it was sent,
     * which separates a late original from a retransmission. Scored on every packet.
     */
    int lastIpId = -1;

    int ipIdSequential;
    int ipIdOther;

    /**
     * The current packet's id is older than the newest one seen (sequential ids): it was sent before a
     * packet that already arrived, i.e. it was overtaken. Not state: read right after observeIpId.
     */
    boolean ipIdWentBack;

    /**
     * How far back an id may be and still count as a packet overtaken in the network (sent that many
     * packets before the newest one seen); further back it is a jump of the counter. The largest
     * flight in the committed captures is 276 packets (testdata/tcp/README.md, cubic-deepqueue).
     */
    static final int MAX_ID_STEP_BACK = 4096;

    void observeIpId(int id) {
        ipIdWentBack = false;
        if (id < 0) {
            return;
        }
        if (lastIpId >= 0) {
            int delta = (id - lastIpId) & 0xffff;
            if (delta >= 1 && delta <= 64) {
                ipIdSequential++;
            } else {
                ipIdOther++;
            }
            if (delta > 0x7fff && 0x10000 - delta <= MAX_ID_STEP_BACK) {
                ipIdWentBack = true;
                return; // keep the newest id: the next packet is compared with what was sent last
            }
            // a jump either way (further back than any flight reaches) starts the count anew from this
            // id: kept as the anchor, one odd id (Linux's SYN-ACK carries 0 under DF, sent from the
            // listener before the connection's own random counter) made every later id "older"
            // (testdata/tcp/http-both: 20 retransmissions counted as reordering at the receiver)
        }
        lastIpId = id;
    }

    /**
     * Sequential ids: ≥ 4 small increments and 4× more of those than jumps; or, early in a flow, every
     * increment so far small (a hole in the first segments of a short flow comes after 1–3 packets:
     * a random or constant id would not give even one increment of 1–64 without a jump, 64/65536).
     */
    boolean ipIdsSequential() {
        return (ipIdSequential >= 4 && ipIdSequential >= 4 * ipIdOther) || (ipIdSequential >= 1 && ipIdOther == 0);
    }

    /**
     * The path's round trip from the handshake (SYN → handshake ACK: a full loop from any tap), -1
     * before it; not state: TcpFlowAnalyzer sets it from the flow's setup before each packet.
     */
    long pathRttNanos = -1;

    /** RFC 6298 §2 smoothed RTT and variance of this side's data→ACK samples; 0 before the first. */
    long srttNanos;

    long rttvarNanos;

    void addRttSample(long r) {
        stats.rtt.add(r);
        rounds.onRttSample(r, pathRttNanos);
        if (srttNanos == 0) {
            srttNanos = r;
            rttvarNanos = r / 2;
        } else {
            rttvarNanos = (3 * rttvarNanos + Math.abs(srttNanos - r)) / 4;
            srttNanos = (7 * srttNanos + r) / 8;
        }
    }

    /** The RTO this sender would compute (RFC 6298 §2.3), floored by {@code minRto}. */
    long rtoEstimate(long minRto) {
        return Math.max(minRto, srttNanos + 4 * rttvarNanos);
    }

    /** Relative offset of a raw 32-bit sequence number sent by this side. */
    long relative(long seq32) {
        return seq.unwrap(seq32) - isn;
    }

    /** Relative offset of a raw 32-bit ACK/SACK value the peer sent about this side's data. */
    long relativeAck(long ack32) {
        return seq.peek(ack32) - isn;
    }

    void startAt(long seq32, boolean isSyn) {
        seq.start(seq32);
        isn = seq.last();
        synSeen = isSyn;
        nextSeq = 0;
    }

    long inFlight() {
        long f = nextSeq - Math.max(ackedUpTo, 0) - sackedOutBytes();
        return Math.max(f, 0);
    }

    /**
     * A send left less than this after an ACK that SACKed new data: the sender cannot have processed
     * that ACK first (its ACK-clocked sends follow an ACK by 25–50 µs at the sender's tap in
     * testdata/tcp/short-http), so it was busy sending and the ACK waited in the socket backlog.
     */
    static final long SACK_REACTION_NANOS = 20_000L;
    /** When the peer last SACKed new data; -1 if never. */
    long lastNewSackNanos = -1;
    /** SACKs arrived while the sender was busy sending: it has not processed them yet. */
    boolean sackBacklogged;

    /**
     * SACKed bytes the sender's own flight excludes. The kernel subtracts SACKed segments once it has
     * processed the ACKs (tcp_packets_in_flight); while the sending process holds the socket, ACKs
     * queue in its backlog (tcp_v4_rcv → sk_add_backlog) and are processed together later. A capture
     * that subtracted such SACKs at once saw a flight of 4–5 where the wire had 7 segments outstanding
     * and the kernel's tcp_probe showed 10 (testdata/tcp/short-http.kernel.json). So SACKs followed
     * by a send within {@link #SACK_REACTION_NANOS} count only from the sender's first retransmission.
     */
    long sackedOutBytes() {
        return recovery == Recovery.OPEN && sackBacklogged ? 0 : unacked.sackedBytes();
    }

    /** The segment size: the peer's announced MSS less 12 bytes of timestamps, or the largest seen. */
    long segmentSize() {
        long largest = stats.maxSegmentBytes;
        if (peerMss > 0) {
            long m = peerMss - (usesTimestamps ? 12 : 0);
            return largest > 0 ? Math.min(m, largest) : m;
        }
        return largest;
    }

    /** A new data segment left at {@code nanos}. */
    void onNewDataSent(long nanos) {
        if (recovery == Recovery.OPEN && lastNewSackNanos >= 0 && nanos - lastNewSackNanos < SACK_REACTION_NANOS) {
            sackBacklogged = true;
        }
    }

    /** State added in flow-state version 2 (FlowStateCodec). */
    void writeV2(DataOutput out) throws IOException {
        Varints.write(out, lastNewSackNanos);
        out.writeBoolean(sackBacklogged);
        rounds.writeV2(out);
    }

    void readV2(DataInput in) throws IOException {
        lastNewSackNanos = Varints.read(in);
        sackBacklogged = in.readBoolean();
        rounds.readV2(in);
    }

    /** State added in flow-state version 3 (FlowStateCodec). */
    void writeV3(DataOutput out) throws IOException {
        rounds.writeV3(out);
    }

    void readV3(DataInput in) throws IOException {
        rounds.readV3(in);
    }

    /** State added in flow-state version 4 (FlowStateCodec): whether a HyStart signal was refuted. */
    void writeV4(DataOutput out) throws IOException {
        rounds.hyStart.writeV4(out);
    }

    void readV4(DataInput in) throws IOException {
        rounds.hyStart.readV4(in);
    }

    /** State added in flow-state version 5 (FlowStateCodec): the start of the round's rate sample. */
    void writeV5(DataOutput out) throws IOException {
        rounds.rate.writeV5(out);
    }

    void readV5(DataInput in) throws IOException {
        rounds.rate.readV5(in);
    }

    void write(DataOutput out) throws IOException {
        stats.write(out);
        Varints.write(out, seq.last());
        out.writeBoolean(seq.started());
        unacked.write(out);
        timestamps.write(out);
        long[] longs = {
            isn,
            nextSeq,
            ackedUpTo,
            lastAckAdvanceNanos,
            lastPeerAckNanos,
            lastPeerDupAckNanos,
            peerWindowBytes,
            recoveryPoint,
            lastRetransmitNanos,
            lastRawAck,
            rawNextSeq,
            finSeq,
            srttNanos,
            rttvarNanos,
            firstLossSignalNanos
        };
        for (long v : longs) {
            Varints.write(out, v);
        }
        rounds.write(out);
        Varints.write(out, peerMss);
        Varints.write(out, backoffSeq);
        Varints.write(out, backoffAttempts);
        Varints.write(out, lastRtoNanos);
        out.writeByte(backoffGapCount);
        for (int i = 0; i < backoffGapCount; i++) {
            Varints.write(out, backoffGaps[i]);
        }
        out.writeBoolean(usesTimestamps);
        Varints.write(out, lastIpId);
        Varints.write(out, ipIdSequential);
        Varints.write(out, ipIdOther);
        Varints.write(out, peerDupAcks);
        Varints.write(out, windowScale);
        Varints.write(out, lastRawWindow);
        out.writeByte(recovery.ordinal());
        int bits = (synSeen ? 1 : 0)
                | (sentAnything ? 2 : 0)
                | (ackSeen ? 4 : 0)
                | (peerSacking ? 8 : 0)
                | (scalingAgreed ? 16 : 0)
                | (lastSegmentKeepAlive ? 32 : 0)
                | (lastSegmentZeroWindowProbe ? 64 : 0);
        out.writeByte(bits);
    }

    void read(DataInput in) throws IOException {
        stats.read(in);
        long last = Varints.read(in);
        seq.restore(last, in.readBoolean());
        unacked.read(in);
        timestamps.read(in);
        isn = Varints.read(in);
        nextSeq = Varints.read(in);
        ackedUpTo = Varints.read(in);
        lastAckAdvanceNanos = Varints.read(in);
        lastPeerAckNanos = Varints.read(in);
        lastPeerDupAckNanos = Varints.read(in);
        peerWindowBytes = Varints.read(in);
        recoveryPoint = Varints.read(in);
        lastRetransmitNanos = Varints.read(in);
        lastRawAck = Varints.read(in);
        rawNextSeq = Varints.read(in);
        finSeq = Varints.read(in);
        srttNanos = Varints.read(in);
        rttvarNanos = Varints.read(in);
        firstLossSignalNanos = Varints.read(in);
        rounds.read(in);
        peerMss = (int) Varints.read(in);
        backoffSeq = Varints.read(in);
        backoffAttempts = (int) Varints.read(in);
        lastRtoNanos = Varints.read(in);
        backoffGapCount = Math.min(in.readByte(), TcpDirectionStats.MAX_BACKOFF_GAPS);
        for (int i = 0; i < backoffGapCount; i++) {
            backoffGaps[i] = Varints.read(in);
        }
        usesTimestamps = in.readBoolean();
        lastIpId = (int) Varints.read(in);
        ipIdSequential = (int) Varints.read(in);
        ipIdOther = (int) Varints.read(in);
        peerDupAcks = (int) Varints.read(in);
        windowScale = (int) Varints.read(in);
        lastRawWindow = (int) Varints.read(in);
        recovery = Recovery.values()[in.readByte()];
        int bits = in.readByte();
        synSeen = (bits & 1) != 0;
        sentAnything = (bits & 2) != 0;
        ackSeen = (bits & 4) != 0;
        peerSacking = (bits & 8) != 0;
        scalingAgreed = (bits & 16) != 0;
        lastSegmentKeepAlive = (bits & 32) != 0;
        lastSegmentZeroWindowProbe = (bits & 64) != 0;
    }
}
