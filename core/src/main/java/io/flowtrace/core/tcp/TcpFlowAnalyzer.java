package io.flowtrace.core.tcp;

import io.flowtrace.core.net.Endpoint;
import io.flowtrace.core.pcap.DecodedPacket;
import java.util.Arrays;

/**
 * Analyses one TCP connection instance, packet by packet, in capture order. Composes the
 * detectors (handshake, ACK processing, retransmission classification, timestamp RTT) over two
 * {@link SenderState}s, one per side. No Flink, no I/O: the offline CLI, the benchmarks and the
 * Flink operator all drive this same class.
 *
 * <p>Events are values: {@link #onPacket(DecodedPacket, TcpEventSink)} hands the events the packet
 * caused to the sink the caller passes with it, and keeps no sink between packets.
 */
public final class TcpFlowAnalyzer {
    private final AnalyzerConfig config;
    // package-private: FlowStateCodec writes and reads them
    final Endpoint client;
    final Endpoint server;
    final boolean clientGuessed;
    final SenderState fromClient = new SenderState();
    final SenderState fromServer = new SenderState();
    final SetupStats setup = new SetupStats();
    final HandshakeTracker handshake = new HandshakeTracker(setup);
    private final AckProcessor acks = new AckProcessor();
    private final RetransmissionClassifier retransmissions;
    long firstSeenNanos = -1;
    long lastSeenNanos = -1;
    TcpFlowEnd flowEnd = TcpFlowEnd.OPEN;
    boolean finFromClient;
    boolean finFromServer;

    /**
     * @param client the side that sent the first SYN (or the guess, see {@code clientGuessed})
     * @param clientGuessed true when no SYN was seen and the client was guessed from the ports
     */
    public TcpFlowAnalyzer(Endpoint client, Endpoint server, boolean clientGuessed, AnalyzerConfig config) {
        this.client = client;
        this.server = server;
        this.clientGuessed = clientGuessed;
        this.config = config;
        this.retransmissions = new RetransmissionClassifier(config);
        fromClient.unacked.limit(config.maxSegmentsPerDirection());
        fromServer.unacked.limit(config.maxSegmentsPerDirection());
    }

    /** True when the packet was sent by this flow's client. */
    public boolean isFromClient(DecodedPacket p) {
        return p.srcPort == client.port()
                && p.dstPort == server.port()
                && Arrays.equals(p.srcAddr, 0, p.addrLength, client.address(), 0, client.address().length)
                && Arrays.equals(p.dstAddr, 0, p.addrLength, server.address(), 0, server.address().length);
    }

    /** Analyses the next packet of the flow; the events it causes go to {@code events}, in order. */
    public void onPacket(DecodedPacket p, TcpEventSink events) {
        onPacket(p, isFromClient(p), events);
    }

    /** As {@link #onPacket(DecodedPacket, TcpEventSink)}, with the direction already known. */
    public void onPacket(DecodedPacket p, boolean fromClientSide, TcpEventSink events) {
        long t = p.timestampNanos;
        if (firstSeenNanos < 0) {
            firstSeenNanos = t;
        }
        lastSeenNanos = Math.max(lastSeenNanos, t);
        SenderState s = fromClientSide ? fromClient : fromServer;
        SenderState r = fromClientSide ? fromServer : fromClient;
        s.stats.packets++;
        s.pathRttNanos = setup.handshakeRttNanos;
        r.pathRttNanos = setup.handshakeRttNanos;
        boolean syn = p.hasFlag(DecodedPacket.SYN);
        if (p.ipVersion == 4 && !(syn && p.hasFlag(DecodedPacket.ACK))) {
            // not a SYN-ACK's id: Linux sends it from the listener (ip_build_and_send_pkt: id 0 under
            // DF), outside the connection's own counter, which starts at a random value
            s.observeIpId(p.ipId);
        }
        boolean fin = p.hasFlag(DecodedPacket.FIN);
        if (syn) {
            onSyn(p, s, r, fromClientSide, t, events);
        } else if (!s.seq.started()) {
            s.startAt(p.seq, false);
        }
        onAck(p, s, r, fromClientSide, syn, t, events);
        onData(p, s, fromClientSide, syn, fin, t, events);
        trackRawNextSeq(p, s, syn, fin);
        if (p.hasTimestamps()) {
            onTimestamps(p, s, r, t);
        }
        if (fin) {
            if (fromClientSide) {
                finFromClient = true;
            } else {
                finFromServer = true;
            }
            if (flowEnd != TcpFlowEnd.RST) {
                flowEnd = TcpFlowEnd.FIN;
            }
        }
        if (p.hasFlag(DecodedPacket.RST)) {
            s.stats.resets++;
            flowEnd = TcpFlowEnd.RST;
        }
        s.stats.stateOverflows = s.unacked.overflowDrops();
    }

    /** The ACK half of packet {@code p} from {@code s}: handshake completion, dup ACKs, windows, and the peer's rounds. */
    private void onAck(
            DecodedPacket p,
            SenderState s,
            SenderState r,
            boolean fromClientSide,
            boolean syn,
            long t,
            TcpEventSink events) {
        if (fromClientSide && p.hasFlag(DecodedPacket.ACK) && !syn) {
            handshake.onClientAck(p.ack, t);
        }
        long previousAck = r.ackedUpTo;
        boolean ackedBefore = r.ackSeen;
        boolean zeroWindow = acks.onPacket(p, s, r, t);
        if (zeroWindow && events != TcpEventSink.NONE) {
            events.accept(new TcpFlowEvent.ZeroWindow(t, fromClientSide));
        }
        if (r.ackSeen && (!ackedBefore || r.ackedUpTo > previousAck)) {
            r.rounds.onAckAdvance(
                    r,
                    t,
                    ackedBefore ? previousAck : r.ackedUpTo,
                    r.ackedUpTo,
                    setup.firstSynNanos,
                    events,
                    !fromClientSide);
        }
    }

    /** The data half of packet {@code p} from {@code s}: byte counts, classification, flight and rounds. */
    private void onData(
            DecodedPacket p,
            SenderState s,
            boolean fromClientSide,
            boolean syn,
            boolean fin,
            long t,
            TcpEventSink events) {
        long rel = s.relative(p.seq);
        long start = syn ? rel + 1 : rel;
        long end = start + p.payloadLength + (fin ? 1 : 0);
        if (p.payloadLength > 0) {
            TcpDirectionStats st = s.stats;
            st.dataPackets++;
            st.dataBytes += p.payloadLength;
            st.maxSegmentBytes = Math.max(st.maxSegmentBytes, p.payloadLength);
            if (st.firstDataNanos < 0) {
                st.firstDataNanos = t;
            }
            st.lastDataNanos = t;
        }
        long nextBefore = s.nextSeq;
        RetransmissionClass trigger =
                retransmissions.onSegment(p, s, fromClientSide, start, end, t, reorderWindowNanos(), events);
        if (p.payloadLength > 0) {
            boolean newData = s.nextSeq > nextBefore;
            if (newData && trigger == null) {
                s.onNewDataSent(t);
            }
            long flight = s.inFlight();
            s.stats.maxInFlightBytes = Math.max(s.stats.maxInFlightBytes, flight);
            if (trigger != null || newData) {
                s.rounds.onSend(s, t, flight, trigger, setup.firstSynNanos, events, fromClientSide);
            }
            countSegmentSize(s, p.payloadLength);
        }
    }

    /** RFC 7323 timestamps: the sender's TSval, and an RTT sample for the peer when this echoes one (TSecr). */
    private static void onTimestamps(DecodedPacket p, SenderState s, SenderState r, long t) {
        s.usesTimestamps = true;
        s.timestamps.sent(p.tsVal, t);
        if (p.hasFlag(DecodedPacket.ACK) && p.tsEcr != 0) {
            long sample = r.timestamps.echoed(p.tsEcr, t);
            if (sample >= 0) {
                r.stats.tsRtt.add(sample);
            }
        }
    }

    private void onSyn(
            DecodedPacket p, SenderState s, SenderState r, boolean fromClientSide, long t, TcpEventSink events) {
        boolean synAck = p.hasFlag(DecodedPacket.ACK);
        if (fromClientSide && !synAck) {
            long lastSyn = setup.lastSynNanos;
            boolean again = handshake.onSyn(p.seq, t);
            if (again) {
                events.accept(new TcpFlowEvent.SynRetransmission(t, true, setup.synRetransmits, t - lastSyn));
            }
            if (!again || !s.seq.started() || ((s.seq.peek(p.seq) - s.isn) != 0)) {
                s.startAt(p.seq, true); // new ISN on a retried SYN: re-base the sequence space
                s.sentAnything = false;
            }
        } else {
            long lastSynAck = setup.lastSynAckNanos;
            if (handshake.onSynAck(p.seq, t)) {
                events.accept(new TcpFlowEvent.SynRetransmission(t, false, setup.synAckRetransmits, t - lastSynAck));
            }
            if (!s.seq.started() || !s.synSeen || s.seq.peek(p.seq) - s.isn != 0) {
                s.startAt(p.seq, true);
                s.sentAnything = false;
            }
        }
        if (p.mss >= 0) {
            s.stats.mss = p.mss;
            r.peerMss = p.mss; // the MSS one side announces bounds what the other may send
        }
        s.windowScale = p.windowScale;
        boolean agreed = fromClient.windowScale >= 0 && fromServer.windowScale >= 0;
        fromClient.scalingAgreed = agreed;
        fromServer.scalingAgreed = agreed;
        // The SYN occupies [0, 1). It is not queued: its retransmissions are counted in setup, and
        // SYN→SYN-ACK timing is the handshake RTT, not a data RTT sample.
        if (!s.sentAnything) {
            s.sentAnything = true;
            s.nextSeq = 1;
        }
    }

    private static void countSegmentSize(SenderState s, int len) {
        long mss = s.segmentSize();
        int bucket;
        if (s.peerMss > 0 && len > s.peerMss) {
            bucket = 4; // larger than any wire segment: TSO/GSO/GRO super-segment at the capture point
        } else if (len < 100) {
            bucket = 0;
        } else if (len < 536) {
            bucket = 1;
        } else if (len < 1200) {
            bucket = 2;
        } else {
            bucket = mss > 0 && len > mss ? 4 : 3;
        }
        s.stats.segmentSizes[bucket]++;
    }

    private static void trackRawNextSeq(DecodedPacket p, SenderState s, boolean syn, boolean fin) {
        long adv = p.payloadLength + (syn ? 1 : 0) + (fin ? 1 : 0);
        if (adv == 0 && s.rawNextSeq >= 0) {
            return;
        }
        long next = (p.seq + adv) & 0xffffffffL;
        if (s.rawNextSeq < 0 || (int) (next - s.rawNextSeq) > 0) {
            s.rawNextSeq = next;
        }
    }

    /**
     * The path's round trip as far as this flow knows it (handshake RTT, else tshark's 3 ms default):
     * hole fills are judged against it.
     */
    private long reorderWindowNanos() {
        long rtt = setup.handshakeRttNanos;
        if (rtt <= 0) {
            return config.defaultReorderWindowNanos();
        }
        return Math.max(rtt, config.minReorderWindowNanos());
    }

    public void expire() {
        if (flowEnd == TcpFlowEnd.OPEN) {
            flowEnd = TcpFlowEnd.IDLE;
        }
    }

    /**
     * The flow is reported: on each side, a HyStart signal that nothing contradicted is the slow-start
     * exit (short flows end before a later round could confirm it); its event goes to {@code events}.
     * {@link #slowStart} does the same without events, so calling this first only adds the events.
     */
    public void settle(TcpEventSink events) {
        fromClient.rounds.settle(fromClient, setup.firstSynNanos, events, true);
        fromServer.rounds.settle(fromServer, setup.firstSynNanos, events, false);
    }

    /** Slow-start result of the client's (c2s) or server's (s2c) sending, final once the flow ended. */
    public SlowStartStats slowStart(boolean ofClient) {
        SenderState s = ofClient ? fromClient : fromServer;
        s.rounds.settle(s, setup.firstSynNanos, TcpEventSink.NONE, ofClient); // see settle(events)
        SlowStartStats st = s.rounds.stats;
        if (st.exitNanos < 0) {
            st.exitReason = st.rwndLimitedSeen
                    ? SlowStartExitCause.RWND_LIMITED
                    : st.appLimitedSeen ? SlowStartExitCause.APP_LIMITED : SlowStartExitCause.NONE;
        }
        return st;
    }

    /** The sender's segment size estimate (peer MSS less timestamp option), for cwnd in segments. */
    public long senderMss(boolean ofClient) {
        return (ofClient ? fromClient : fromServer).segmentSize();
    }

    /** The window-scale shift this side announced in its SYN (RFC 7323 §2.2), -1 without the option or SYN. */
    public int windowScale(boolean ofClient) {
        return (ofClient ? fromClient : fromServer).windowScale;
    }

    public Endpoint client() {
        return client;
    }

    public Endpoint server() {
        return server;
    }

    public boolean clientGuessed() {
        return clientGuessed;
    }

    public TcpDirectionStats clientToServer() {
        return fromClient.stats;
    }

    public TcpDirectionStats serverToClient() {
        return fromServer.stats;
    }

    public SetupStats setup() {
        return setup;
    }

    public long firstSeenNanos() {
        return firstSeenNanos;
    }

    public long lastSeenNanos() {
        return lastSeenNanos;
    }

    public TcpFlowEnd end() {
        return flowEnd;
    }

    public boolean closed() {
        return flowEnd == TcpFlowEnd.RST || (finFromClient && finFromServer);
    }

    public boolean established() {
        return setup.established;
    }

    /** The client's ISN from its last SYN, or -1 (used to tell a retried SYN from port reuse). */
    public long clientIsn() {
        return handshake.clientIsn();
    }
}
