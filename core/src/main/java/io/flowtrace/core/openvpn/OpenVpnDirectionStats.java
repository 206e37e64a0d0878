package io.flowtrace.core.openvpn;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One direction of an OpenVPN session's reliability layer, as seen at one capture point: what
 * the sender sent, and what the other side's ACKs said about it. Control packets are few (a
 * setup is tens to a few hundred), so per-packet-id state is a bounded map, not a hot-path table.
 */
public final class OpenVpnDirectionStats {
    /** Packet-ids remembered per direction; older ones are forgotten (a resend of one then counts as new). */
    static final int MAX_TRACKED_IDS = 1024;
    /** Retransmission gaps and times kept per direction for the report; counts go on beyond. */
    static final int MAX_LISTED = 512;

    /** A sent message packet-id. */
    static final class Sent {
        final long firstNanos;
        long lastNanos;
        int copies;
        long ackedNanos = -1;
        /** ACK ids above this one seen since its last copy (reliable.c counts each, repeats too). */
        int laterAcksSinceCopy;
        /** The peer sent its hard reset again since this copy (a server reset's answer is due). */
        boolean peerResetSinceCopy;
        /** Gap of the previous timer-driven copy, for the backoff ratio; -1 if none. */
        long lastTimerGapNanos = -1;

        boolean carriesPayload;

        Sent(long t) {
            firstNanos = t;
            lastNanos = t;
            copies = 1;
        }
    }

    /** In first-send order: the eldest is forgotten first ({@link OpenVpnFlowCodec} keeps the order). */
    final Map<Long, Sent> sent = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Sent> eldest) {
            return size() > MAX_TRACKED_IDS;
        }
    };

    long controlPackets;
    long ackOnlyPackets;
    long dataPackets;
    long opaquePackets;
    long controlPayloadBytes;
    long retransmits;
    final long[] retransmitsByCause = new long[RetransmitCause.values().length];
    /** Copies of a packet-id sent after the peer's ACK of it was seen here: unneeded. */
    long duplicates;

    final List<Long> retransmitGapsUs = new ArrayList<>();
    /** Timer-driven gaps only: the backoff schedule. */
    final List<Long> timeoutGapsUs = new ArrayList<>();
    /** Gaps of first timer-driven resends (from the original), for the initial timeout. */
    final LatencyStats firstTimeoutGapUs = new LatencyStats();
    /** Ratio of each timer-driven gap to the previous one of the same packet-id. */
    double backoffRatioSum;

    long backoffRatios;
    final LatencyStats ackLatencyUs = new LatencyStats();
    /** Times of retransmissions (ns), for synchronised retries across sessions. */
    final List<Long> retransmitTimesNanos = new ArrayList<>();

    final List<RetransmitCause> retransmitCauses = new ArrayList<>();
    /** First copies of a packet-id seen after a higher one: the original was lost before this capture point. */
    long lateFirstCopies;
    /** TCP segments of this sender that repeated bytes already framed (proto tcp only). */
    long tcpRetransmits;

    long highestId = -1;
    long lastControlWithPayloadNanos = -1;
    long lastControlWithPayloadId = -1;

    /** This sender's last packet of the session (any kind), -1 before its first: where its runs begin. */
    long lastOwnNanos = -1;
    /**
     * This sender's current run of packets began after {@link #QUIET_NANOS} of its own silence and
     * not just after a packet of the peer, and no packet of the peer was seen since: what a timer
     * sends, not an answer (the tls-crypt inference, docs/metrics.md).
     */
    boolean quietRun;
    /** tls-crypt: encrypted lengths of this sender's earlier P_CONTROL_V1 packets, oldest first (bounded). */
    final List<Integer> opaqueControlLengths = new ArrayList<>();
    /** tls-crypt: their times (ns), parallel to {@link #opaqueControlLengths}. */
    final List<Long> opaqueControlNanos = new ArrayList<>();

    /** Own silence before a run that a timer may have started: OpenVPN's one-second timer tick. */
    static final long QUIET_NANOS = RetransmitCause.MIN_TIMER_GAP_NANOS;
    /** A run that begins less than this after a packet of the peer answers it (OpenVPN replies within ms). */
    static final long ANSWER_NANOS = 50_000_000L;
    /**
     * Largest difference of the encrypted lengths of two copies of one message: their ACK arrays may
     * differ, 0-8 ids of 4 bytes plus the peer's 8-byte session id when not empty (reliable.c,
     * RELIABLE_ACK_SIZE 8), so copies differ by a multiple of 4 up to 40 bytes.
     */
    static final int MAX_ACK_ARRAY_DIFFERENCE = 4 * OpenVpnHeader.MAX_ACKS + 8;

    /**
     * A tls-crypt hard reset (opaque: its ACK array and message packet-id are encrypted) sent at
     * {@code t}: message packet-id 0 of its session, so its copies are counted and classified as
     * a plain reset's; it stays counted in {@link #opaquePackets()}, not {@link #controlPackets()}.
     */
    RetransmitCause onHardReset(long t, boolean serverReset) {
        long control = controlPackets;
        RetransmitCause cause = onControl(0, t, 0, serverReset);
        controlPackets = control;
        return cause;
    }

    /**
     * A control packet with message packet-id {@code id} was sent at {@code t}; returns its
     * cause when it is a retransmission, else null.
     */
    RetransmitCause onControl(long id, long t, int payloadLength, boolean serverReset) {
        controlPackets++;
        controlPayloadBytes += payloadLength;
        Sent s = sent.get(id);
        if (s == null) {
            if (id < highestId) {
                lateFirstCopies++;
            }
            highestId = Math.max(highestId, id);
            Sent first = new Sent(t);
            first.carriesPayload = payloadLength > 0;
            sent.put(id, first);
            if (payloadLength > 0) {
                lastControlWithPayloadNanos = t;
                lastControlWithPayloadId = id;
            }
            return null;
        }
        long gap = t - s.lastNanos;
        RetransmitCause cause;
        if (serverReset && s.peerResetSinceCopy) {
            cause = RetransmitCause.RESET_ANSWER;
        } else if (gap < RetransmitCause.MIN_TIMER_GAP_NANOS
                || s.laterAcksSinceCopy >= RetransmitCause.LATER_ACKS_FOR_EARLY) {
            cause = RetransmitCause.EARLY_AFTER_LATER_ACKS;
        } else {
            cause = RetransmitCause.TIMEOUT;
        }
        countRetransmit(cause, gap, t);
        if (s.ackedNanos >= 0) {
            duplicates++;
        }
        if (cause == RetransmitCause.TIMEOUT) {
            if (s.lastTimerGapNanos < 0 && s.copies == 1) {
                firstTimeoutGapUs.add(gap / 1000);
            } else if (s.lastTimerGapNanos > 0) {
                backoffRatioSum += (double) gap / s.lastTimerGapNanos;
                backoffRatios++;
            }
            s.lastTimerGapNanos = gap;
        }
        s.copies++;
        s.lastNanos = t;
        s.laterAcksSinceCopy = 0;
        s.peerResetSinceCopy = false;
        return cause;
    }

    private void countRetransmit(RetransmitCause cause, long gap, long t) {
        retransmits++;
        retransmitsByCause[cause.ordinal()]++;
        if (retransmitGapsUs.size() < MAX_LISTED) {
            retransmitGapsUs.add(gap / 1000);
            retransmitTimesNanos.add(t);
            retransmitCauses.add(cause);
        }
        if (cause == RetransmitCause.TIMEOUT && timeoutGapsUs.size() < MAX_LISTED) {
            timeoutGapsUs.add(gap / 1000);
        }
    }

    /**
     * Any packet of this sender at {@code t}; {@code peer} is the other direction. Keeps the runs
     * the tls-crypt inference needs: a run begins after {@link #QUIET_NANOS} of this sender's
     * silence, and is quiet if the peer's last packet was at least {@link #ANSWER_NANOS} before and
     * none followed.
     */
    void onOwnPacket(long t, OpenVpnDirectionStats peer) {
        if (lastOwnNanos < 0 || t - lastOwnNanos >= QUIET_NANOS) {
            quietRun = peer.lastOwnNanos < 0 || t - peer.lastOwnNanos >= ANSWER_NANOS;
        }
        lastOwnNanos = Math.max(lastOwnNanos, t);
        peer.quietRun = false;
    }

    /**
     * A tls-crypt P_CONTROL_V1 of {@code encryptedLength} bytes after the tag, sent at {@code t}
     * (after {@link #onOwnPacket}). Its message packet-id and ACKs are encrypted, so a copy is
     * inferred (docs/metrics.md, "OpenVPN modes"): in a quiet run, and an earlier P_CONTROL_V1 of
     * this sender at least a timer tick before has a length that differs only as two ACK arrays
     * can. Counted as a timer-driven retransmission with the gap from the latest such packet;
     * returns true if inferred. ACK-driven early resends (~10 ms apart, in the middle of a
     * transfer) are not inferable and stay uncounted.
     */
    boolean onOpaqueControl(long t, int encryptedLength) {
        long match = -1;
        if (quietRun) {
            for (int i = opaqueControlNanos.size() - 1; i >= 0 && match < 0; i--) {
                long at = opaqueControlNanos.get(i);
                int d = Math.abs(encryptedLength - opaqueControlLengths.get(i));
                if (t - at >= RetransmitCause.MIN_TIMER_GAP_NANOS && d % 4 == 0 && d <= MAX_ACK_ARRAY_DIFFERENCE) {
                    match = at;
                }
            }
        }
        if (opaqueControlNanos.size() == MAX_TRACKED_IDS) {
            opaqueControlNanos.remove(0);
            opaqueControlLengths.remove(0);
        }
        opaqueControlNanos.add(t);
        opaqueControlLengths.add(encryptedLength);
        if (match < 0) {
            return false;
        }
        countRetransmit(RetransmitCause.TIMEOUT, t - match, t);
        return true;
    }

    /** The peer's packet at {@code t} ACKed {@code ids[0..n)} of this direction. */
    void onPeerAcks(long[] ids, int n, long t) {
        for (int i = 0; i < n; i++) {
            long a = ids[i];
            Sent s = sent.get(a);
            if (s != null && s.ackedNanos < 0) {
                s.ackedNanos = t;
                ackLatencyUs.add((t - s.firstNanos) / 1000);
            }
            // counted whether or not this id's own ACK was seen here: the sender may not have it yet
            for (Iterator<Map.Entry<Long, Sent>> it = sent.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<Long, Sent> e = it.next();
                if (e.getKey() < a) {
                    e.getValue().laterAcksSinceCopy++;
                }
            }
        }
    }

    /** The peer repeated its hard reset: every unACKed packet here may be answered again. */
    void onPeerReset() {
        for (Sent s : sent.values()) {
            s.peerResetSinceCopy = true;
        }
    }

    /**
     * When the peer had ACKed every packet-id that carried payload (the last of those first
     * ACKs); -1 if one is still unACKed here or none carried payload.
     */
    long allPayloadAckedAt() {
        long last = -1;
        for (Sent s : sent.values()) {
            if (s.carriesPayload) {
                if (s.ackedNanos < 0) {
                    return -1;
                }
                last = Math.max(last, s.ackedNanos);
            }
        }
        return last;
    }

    public long controlPackets() {
        return controlPackets;
    }

    public long ackOnlyPackets() {
        return ackOnlyPackets;
    }

    public long dataPackets() {
        return dataPackets;
    }

    public long opaquePackets() {
        return opaquePackets;
    }

    public long controlPayloadBytes() {
        return controlPayloadBytes;
    }

    public long retransmits() {
        return retransmits;
    }

    public long retransmits(RetransmitCause c) {
        return retransmitsByCause[c.ordinal()];
    }

    /** TCP retransmissions of this sender (proto tcp); 0 over UDP. */
    public long tcpRetransmits() {
        return tcpRetransmits;
    }

    public long lateFirstCopies() {
        return lateFirstCopies;
    }

    public long duplicates() {
        return duplicates;
    }

    public List<Long> retransmitGapsUs() {
        return Collections.unmodifiableList(retransmitGapsUs);
    }

    public List<Long> timeoutGapsUs() {
        return Collections.unmodifiableList(timeoutGapsUs);
    }

    /** Mean gap from an original to its first timer-driven resend (µs); NaN if none. */
    public double initialTimeoutUs() {
        return firstTimeoutGapUs.mean();
    }

    /** Mean ratio of successive timer-driven gaps of one packet-id (2 in OpenVPN 2.x); NaN if none. */
    public double backoffRatio() {
        return backoffRatios == 0 ? Double.NaN : backoffRatioSum / backoffRatios;
    }

    public LatencyStats ackLatencyUs() {
        return ackLatencyUs;
    }

    public List<Long> retransmitTimesNanos() {
        return Collections.unmodifiableList(retransmitTimesNanos);
    }

    public List<RetransmitCause> retransmitCauses() {
        return Collections.unmodifiableList(retransmitCauses);
    }
}
