package io.flowtrace.core.tcp;

import io.flowtrace.core.pcap.DecodedPacket;

/**
 * The data half of every packet: new data, capture gaps, and every segment that covers sequence
 * space already sent, sorted into retransmission classes, reordering, network duplicates, window
 * probes and keep-alives. The rules follow tshark (packet-tcp.c) and tstat (Mellia et al., "Passive
 * analysis of TCP anomalies", 2008) and mirror the sender's recovery states in Linux
 * (tcp_set_ca_state: Open, Recovery, Loss); docs/metrics.md states them in full.
 */
final class RetransmissionClassifier {
    private final AnalyzerConfig config;

    RetransmissionClassifier(AnalyzerConfig config) {
        this.config = config;
    }

    /**
     * @param start relative offset of the first byte of sequence space the segment occupies
     * @param end one past its last (FIN included)
     * @param reorderWindowNanos hole-fill age below which a hole fill is reordering
     * @param events where the segment's events go (lost segment, reordering, retransmission, RTO backoff)
     * @return the recovery mechanism that sent the segment when it was counted as a retransmission
     *     (never SPURIOUS: a spurious one returns what sent it), else null
     */
    RetransmissionClass onSegment(
            DecodedPacket p,
            SenderState s,
            boolean fromClient,
            long start,
            long end,
            long nanos,
            long reorderWindowNanos,
            TcpEventSink events) {
        int len = p.payloadLength;
        s.lastSegmentKeepAlive = false;
        s.lastSegmentZeroWindowProbe = false;
        if (end <= start) {
            if (len == 0 && s.sentAnything && s.ackSeen && start == s.ackedUpTo - 1) {
                // Linux probes with seq = snd_una - 1 and no data (tcp_xmit_probe_skb): a window probe
                // when the peer's window is closed, a keep-alive otherwise.
                if (s.peerWindowBytes == 0) {
                    s.stats.windowProbes++;
                    s.lastSegmentZeroWindowProbe = true;
                } else {
                    s.stats.keepAlives++;
                    s.lastSegmentKeepAlive = true;
                }
            }
            return null;
        }
        if (!s.sentAnything) {
            s.sentAnything = true;
            s.nextSeq = start;
            if (!s.ackSeen) {
                s.ackedUpTo = start;
            }
        }
        if (len <= 1 && start == s.nextSeq - 1 && (p.flags & (DecodedPacket.SYN | DecodedPacket.FIN)) == 0) {
            s.stats.keepAlives++; // tshark: seglen ≤ 1 at nextseq − 1
            s.lastSegmentKeepAlive = true;
            return null;
        }
        if (len == 1 && s.peerWindowBytes == 0 && start >= s.nextSeq - 1) {
            s.stats.windowProbes++; // one byte into a closed window (RFC 9293 §3.8.6.1)
            s.lastSegmentZeroWindowProbe = true;
            if (start >= s.nextSeq) {
                s.unacked.append(start, end, nanos, p.ipId);
                s.nextSeq = end;
                s.stats.uniqueBytes += len;
            }
            return null;
        }
        if (start >= s.nextSeq) {
            newData(p, s, fromClient, start, end, nanos, events);
            return null;
        }
        long below = Math.min(end, s.nextSeq);
        RetransmissionClass trigger = resent(p, s, fromClient, start, below, nanos, reorderWindowNanos, events);
        if (end > s.nextSeq) {
            long extra = end - s.nextSeq;
            s.unacked.append(s.nextSeq, end, nanos, p.ipId);
            s.nextSeq = end;
            s.stats.uniqueBytes += Math.min(extra, len);
        }
        return trigger;
    }

    private void newData(
            DecodedPacket p, SenderState s, boolean fromClient, long start, long end, long nanos, TcpEventSink events) {
        if (start > s.nextSeq) {
            s.stats.lostSegments++; // tshark: "previous segment not captured"
            events.accept(new TcpFlowEvent.LostSegment(nanos, fromClient, s.nextSeq, start));
        }
        s.unacked.append(start, end, nanos, p.ipId);
        s.nextSeq = end;
        s.stats.uniqueBytes += p.payloadLength;
    }

    /** The trigger of the retransmission this segment is (see {@link #onSegment}), or null when it is not one. */
    private RetransmissionClass resent(
            DecodedPacket p,
            SenderState s,
            boolean fromClient,
            long start,
            long end,
            long nanos,
            long reorderWindowNanos,
            TcpEventSink events) {
        SegmentQueue q = s.unacked;
        int len = p.payloadLength;
        int floor = q.floor(start);
        boolean seenBefore = (floor >= 0 && q.end(floor) > start) || (s.ackSeen && start < s.ackedUpTo);
        if (seenBefore && p.ipVersion == 4 && s.ipIdWentBack && s.ipIdsSequential()) {
            // data already here, in a copy with an older IPv4 id than the newest seen: sent before a
            // packet that already arrived, so not a retransmission but an earlier copy (the original)
            // overtaken on the way, typically by its own retransmission (testdata/tcp/reorder-lane)
            s.stats.reorderedPackets++;
            events.accept(new TcpFlowEvent.Reordering(
                    nanos, fromClient, start, len, floor >= 0 ? nanos - q.firstSent(floor) : 0));
            return null;
        }
        if (s.ackSeen && end <= s.ackedUpTo) {
            // already ACKed: spurious, but it still tells us which recovery the sender is in
            RetransmissionClass trigger = classify(s, start, end, nanos, 1);
            count(s, fromClient, RetransmissionClass.SPURIOUS, trigger, start, len, nanos, -1, 0, events);
            return trigger;
        }
        int i = q.floor(start);
        if (i >= 0
                && q.start(i) == start
                && q.end(i) >= end
                && p.ipId >= 0
                && q.ipId(i) == p.ipId
                && p.ipVersion == 4) {
            s.stats.networkDuplicates++; // same IP id: the network (or the capture) duplicated it
            return null;
        }
        boolean seen = (i >= 0 && q.end(i) > start) || (s.ackSeen && start < s.ackedUpTo);
        if (!seen) {
            long holeAge = i + 1 < q.size() ? nanos - q.firstSent(i + 1) : 0;
            if (isLateOriginal(p, s, q, i, nanos, holeAge, reorderWindowNanos)) {
                s.stats.reorderedPackets++;
                s.stats.uniqueBytes += fill(q, start, end, nanos, p.ipId, 1);
                events.accept(new TcpFlowEvent.Reordering(nanos, fromClient, start, len, holeAge));
                return null;
            }
            RetransmissionClass c = classify(s, start, end, nanos, 1);
            s.stats.uniqueBytes += fill(q, start, end, nanos, p.ipId, 2);
            count(s, fromClient, c, c, start, len, nanos, holeAge, 2, events);
            return c;
        }
        long sinceOriginal = i >= 0 ? nanos - q.firstSent(i) : -1;
        int transmission = i >= 0 ? q.transmissions(i) + 1 : 2;
        RetransmissionClass c = classify(s, start, end, nanos, transmission - 1);
        s.stats.uniqueBytes += fill(q, unackedFrom(s, start), end, nanos, p.ipId, 2);
        count(s, fromClient, c, c, start, len, nanos, sinceOriginal, transmission, events);
        return c;
    }

    /**
     * A segment filling a hole the capture never saw is either the original arriving late
     * (reordering) or a retransmission whose original was lost before the capture point. With
     * sequential IPv4 ids the id says which: an original was sent before the segment that opened
     * the hole, a retransmission after it. Otherwise timing decides: a retransmission needs the
     * receiver's dup ACK or SACK to have passed here and half a round trip more; a fill sooner than
     * that (or, with no loss signal at all, younger than the reorder window) is reordering (tstat's
     * rule, Mellia et al. 2008).
     */
    private static boolean isLateOriginal(
            DecodedPacket p, SenderState s, SegmentQueue q, int i, long nanos, long holeAge, long reorderWindowNanos) {
        if (p.ipVersion == 4 && p.ipId >= 0 && s.ipIdsSequential() && i + 1 < q.size() && q.ipId(i + 1) >= 0) {
            int delta = (p.ipId - q.ipId(i + 1)) & 0xffff;
            return delta == 0 || delta > 0x7fff;
        }
        if (s.firstLossSignalNanos >= 0) {
            return nanos - s.firstLossSignalNanos < reorderWindowNanos / 2;
        }
        return holeAge < reorderWindowNanos;
    }

    /**
     * Records a transmission over [start, end): held segments it overlaps are marked sent again;
     * gaps between them (never seen) become new segments with {@code tx} transmissions.
     *
     * @return bytes of the range that had never been seen
     */
    private static long fill(SegmentQueue q, long start, long end, long nanos, int ipId, int tx) {
        long unseen = 0;
        long at = start;
        int i = q.floor(at);
        if (i >= 0 && q.end(i) <= at) {
            i++;
        } else if (i < 0) {
            i = 0;
        }
        while (at < end) {
            if (i < q.size() && q.start(i) <= at) {
                q.retransmitted(i, nanos, ipId);
                at = q.end(i);
                i++;
                continue;
            }
            long gapEnd = i < q.size() ? Math.min(end, q.start(i)) : end;
            q.insert(i, at, gapEnd, nanos, ipId, tx);
            unseen += gapEnd - at;
            at = gapEnd;
            i++;
        }
        return unseen;
    }

    /**
     * Where a resend of data already seen starts to be unACKed. A resend straddling the cumulative
     * ACK (starting below it) repeats an ACKed part that left the queue and was counted when first
     * sent: only the part from the ACK on is recorded, so unique bytes never exceed the sequence
     * space sent. Before any ACK the queue may hold data below the first segment seen (a hole filled
     * at the start of a mid-connection capture): all of it counts.
     */
    private static long unackedFrom(SenderState s, long start) {
        return s.ackSeen ? Math.max(start, s.ackedUpTo) : start;
    }

    /**
     * Which recovery mechanism sent this, from the sender's inferred state and timing.
     *
     * @param priorTransmissions how often this data went out before (1 for a first retransmission).
     *     A spurious resend passes 1: the count only matters for a resend of the tail, and a tail at
     *     or below the cumulative ACK means everything sent was ACKed, so the ACK removed what was
     *     held (data first seen below an ACK, in a capture starting with it, is held as sent once)
     */
    private RetransmissionClass classify(SenderState s, long start, long end, long nanos, int priorTransmissions) {
        SegmentQueue q = s.unacked;
        long anchor = Math.max(s.lastAckAdvanceNanos, s.lastRetransmitNanos);
        if (q.size() > 0 && q.start(0) >= s.ackedUpTo) {
            anchor = Math.max(anchor, q.firstSent(0)); // RTO timer armed when the head went out
        }
        long stalled = nanos - anchor;
        boolean rtoLike = stalled >= s.rtoEstimate(config.minRtoNanos());
        s.lastRetransmitNanos = nanos;
        if (s.recovery != SenderState.Recovery.OPEN && s.ackedUpTo >= s.recoveryPoint) {
            s.recovery = SenderState.Recovery.OPEN;
        }
        if (s.recovery != SenderState.Recovery.OPEN && start < s.recoveryPoint) {
            if (rtoLike) {
                enter(s, SenderState.Recovery.LOSS); // RTO during recovery, or a backed-off RTO
                return RetransmissionClass.RTO;
            }
            return s.recovery == SenderState.Recovery.LOSS ? RetransmissionClass.RTO : RetransmissionClass.FAST;
        }
        if (s.recovery == SenderState.Recovery.RECOVERY && !rtoLike) {
            // Still in Recovery, resending data at or beyond the episode's end: the sender marked it
            // lost by send time (RACK, RFC 8985 §6.2: a later retransmission was delivered) without
            // a fresh dup ACK or SACK; Linux reaches high_seq and re-enters Recovery on the same ACK
            // (tcp_fastretrans_alert). testdata/tcp/bbr-loss: 48 such retransmissions in a row.
            enter(s, SenderState.Recovery.RECOVERY);
            return RetransmissionClass.FAST;
        }
        boolean lossSignal = s.peerDupAcks > 0 || s.peerSacking;
        if (lossSignal && !rtoLike) {
            enter(s, SenderState.Recovery.RECOVERY);
            return RetransmissionClass.FAST;
        }
        boolean tail = end >= s.nextSeq;
        if (tail && !lossSignal && priorTransmissions <= 1) {
            // RFC 8985 §7.3: the probe resends the last segment, once, before any RTO. With a single
            // segment out, Linux's PTO is about as long as the RTO (tcp_schedule_loss_probe adds
            // TCP_RTO_MIN), so a long wait alone does not make it an RTO.
            return RetransmissionClass.TLP;
        }
        if (rtoLike) {
            enter(s, SenderState.Recovery.LOSS);
            return RetransmissionClass.RTO;
        }
        return tail ? RetransmissionClass.TLP : RetransmissionClass.OTHER;
    }

    private static void enter(SenderState s, SenderState.Recovery state) {
        s.recovery = state;
        s.recoveryPoint = s.nextSeq;
    }

    /**
     * @param c the class counted (SPURIOUS when the data was already ACKed)
     * @param trigger the recovery mechanism that sent it (never SPURIOUS)
     */
    private static void count(
            SenderState s,
            boolean fromClient,
            RetransmissionClass c,
            RetransmissionClass trigger,
            long seq,
            int len,
            long nanos,
            long sinceOriginal,
            int transmission,
            TcpEventSink events) {
        s.stats.retransmittedPackets++;
        s.stats.retransmittedBytes += len;
        s.stats.retransmits[c.ordinal()]++;
        events.accept(
                new TcpFlowEvent.Retransmission(nanos, fromClient, c, trigger, seq, len, sinceOriginal, transmission));
        trackBackoff(s, fromClient, seq, nanos, sinceOriginal, events);
    }

    /**
     * Backoff (RFC 6298 §5.5: the timer doubles on each expiry): successive retransmissions of the
     * same sequence number form a schedule, whatever sent the first one (a tail-loss probe or a fast
     * retransmit is often followed by RTOs); the gap before the first is from the original.
     */
    private static void trackBackoff(
            SenderState s, boolean fromClient, long seq, long nanos, long sinceOriginal, TcpEventSink events) {
        if (seq == s.backoffSeq && s.lastRtoNanos >= 0) {
            long gap = nanos - s.lastRtoNanos;
            s.backoffAttempts++;
            if (s.backoffGapCount < s.backoffGaps.length) {
                s.backoffGaps[s.backoffGapCount++] = gap;
            }
            events.accept(new TcpFlowEvent.RtoBackoff(nanos, fromClient, seq, s.backoffAttempts, gap));
        } else {
            s.backoffSeq = seq;
            s.backoffAttempts = 1;
            s.backoffGapCount = 0;
            if (sinceOriginal >= 0) {
                s.backoffGaps[s.backoffGapCount++] = sinceOriginal;
            }
        }
        s.lastRtoNanos = nanos;
        if (s.backoffAttempts > s.stats.rtoMaxRetries) {
            s.stats.rtoMaxRetries = s.backoffAttempts;
            s.stats.rtoGapCount = s.backoffGapCount;
            System.arraycopy(s.backoffGaps, 0, s.stats.rtoGapsNanos, 0, s.backoffGapCount);
        }
    }
}
