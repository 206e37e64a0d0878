package io.flowtrace.core.tcp;

import io.flowtrace.core.pcap.DecodedPacket;

/**
 * The ACK half of every packet: duplicate ACKs and zero windows as tshark counts them
 * (packet-tcp.c, tcp_analyze_sequence_number), then what the ACK means for the peer's data:
 * cumulative progress (pruning its unACKed segments, Karn-filtered RTT samples per RFC 6298 §3),
 * SACK blocks (RFC 2018), D-SACK (RFC 2883) and the receive window it advertises.
 */
final class AckProcessor {

    /**
     * @param acker the side that sent this packet
     * @param sender the side whose data the packet acknowledges
     * @return true when the packet advertised a zero window (counted in the acker's {@code zeroWindows})
     */
    boolean onPacket(DecodedPacket p, SenderState acker, SenderState sender, long nanos) {
        int flags = p.flags;
        boolean synFinRst = (flags & (DecodedPacket.SYN | DecodedPacket.FIN | DecodedPacket.RST)) != 0;
        boolean ack = (flags & DecodedPacket.ACK) != 0;
        boolean zeroWindow = countLikeTshark(p, acker, sender, synFinRst, ack, nanos);
        long window = AdvertisedWindow.observe(p, acker);
        if (!ack || !sender.seq.started()) {
            return zeroWindow;
        }
        long ackRel = sender.relativeAck(p.ack);
        if (ackRel > sender.nextSeq && sender.sentAnything) {
            // the capture missed data this ACK covers (tshark: "ACKed segment that wasn't captured")
            sender.stats.ackedUnseen++;
            sender.nextSeq = ackRel;
        }
        boolean pure = p.payloadLength == 0 && !synFinRst;
        if (!sender.ackSeen || ackRel > sender.ackedUpTo) {
            advance(sender, ackRel, nanos);
        } else if (ackRel == sender.ackedUpTo && pure && sender.nextSeq > ackRel) {
            sender.peerDupAcks++;
            sender.lastPeerDupAckNanos = nanos;
            if (sender.firstLossSignalNanos < 0) {
                sender.firstLossSignalNanos = nanos;
            }
        }
        sender.lastPeerAckNanos = nanos;
        readSack(p, acker, sender, ackRel, nanos);
        if (sender.peerSacking && sender.firstLossSignalNanos < 0) {
            sender.firstLossSignalNanos = nanos;
        }
        sender.peerWindowBytes = window;
        return zeroWindow;
    }

    private static void advance(SenderState sender, long ackRel, long nanos) {
        sender.unacked.ackTo(ackRel);
        SegmentQueue q = sender.unacked;
        if (q.lastAckedTransmissions == 1 && q.lastAckedEnd == ackRel && !q.ackCoveredAmbiguous) {
            // Karn (RFC 6298 §3): no sample from an ACK that covers a retransmitted segment; and an
            // ACK that only catches up over SACKed data says nothing about when that data arrived
            long sample = nanos - q.lastAckedSent;
            if (sample >= 0) {
                sender.addRttSample(sample);
            }
        }
        sender.ackedUpTo = ackRel;
        sender.ackSeen = true;
        sender.lastAckAdvanceNanos = nanos;
        sender.peerDupAcks = 0;
        sender.firstLossSignalNanos = -1;
        if (q.sackedBytes() == 0) {
            sender.sackBacklogged = false; // everything SACKed is cumulatively ACKed now
        }
        if (sender.recovery != SenderState.Recovery.OPEN && ackRel >= sender.recoveryPoint) {
            sender.recovery = SenderState.Recovery.OPEN;
        }
    }

    private static void readSack(DecodedPacket p, SenderState acker, SenderState sender, long ackRel, long nanos) {
        sender.peerSacking = false;
        long sackedBefore = sender.unacked.sackedBytes();
        for (int i = 0; i < p.sackCount; i++) {
            long left = sender.relativeAck(p.sackLeft[i]);
            long right = sender.relativeAck(p.sackRight[i]);
            if (right <= left) {
                continue; // absurd block: ignore rather than corrupt state
            }
            if (i == 0
                    && (left < ackRel
                            || (p.sackCount > 1
                                    && left >= sender.relativeAck(p.sackLeft[1])
                                    && right <= sender.relativeAck(p.sackRight[1])))) {
                acker.stats.dsacks++; // RFC 2883 §4: first block below the ACK or inside the second
                continue;
            }
            if (right > ackRel) {
                sender.unacked.sack(Math.max(left, ackRel), right);
                sender.peerSacking = true;
            }
        }
        if (sender.unacked.sackedBytes() > sackedBefore) {
            sender.lastNewSackNanos = nanos;
        }
    }

    /**
     * Dup ACK and zero window exactly as tshark flags them, so the counts can be compared 1:1.
     *
     * @return whether it was a zero window
     */
    private static boolean countLikeTshark(
            DecodedPacket p, SenderState acker, SenderState sender, boolean synFinRst, boolean ack, long nanos) {
        boolean zeroWindow = p.window == 0 && !synFinRst;
        if (zeroWindow) {
            acker.stats.zeroWindows++;
        }
        if (p.payloadLength == 0
                && p.window != 0
                && p.window == acker.lastRawWindow
                && p.seq == acker.rawNextSeq
                && ack
                && p.ack == acker.lastRawAck
                && !synFinRst
                && !sender.lastSegmentKeepAlive
                && !sender.lastSegmentZeroWindowProbe) {
            acker.stats.dupAcks++;
        }
        acker.lastRawWindow = p.window;
        if (ack) {
            acker.lastRawAck = p.ack;
        }
        return zeroWindow;
    }
}
