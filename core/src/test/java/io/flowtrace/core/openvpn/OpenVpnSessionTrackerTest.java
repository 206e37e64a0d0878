package io.flowtrace.core.openvpn;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.core.pcap.DecodeStatus;
import io.flowtrace.core.pcap.DecodedPacket;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The tracker's own rules on a hand-made timeline (OpenVpnSessionTracker's javadoc): both
 * directions of a UDP flow are one flow, data before any session is counted apart, a flow silent
 * for 300 s is reported by the first sweep at or after its deadline (sweeps run at most once per
 * second of capture time, on a packet), every session is reported once, and packets that are
 * neither UDP nor TCP are ignored.
 */
class OpenVpnSessionTrackerTest {
    private static final long MS = 1_000_000L;
    private static final long S = 1_000 * MS;

    private final List<OpenVpnSession> reported = new ArrayList<>();
    private final OpenVpnSessionTracker tracker =
            new OpenVpnSessionTracker(OpenVpnWire.defaults(), i -> "if" + i, reported::add);

    private void send(DecodeStatus status, int src, int srcPort, int dst, int dstPort, long t, OpenVpnHeader h) {
        DecodedPacket p = new DecodedPacket();
        p.status = status;
        p.timestampNanos = t;
        p.addrLength = 4;
        p.srcAddr[0] = 10;
        p.srcAddr[3] = (byte) src;
        p.dstAddr[0] = 10;
        p.dstAddr[3] = (byte) dst;
        p.srcPort = srcPort;
        p.dstPort = dstPort;
        tracker.onPacket(p, h);
    }

    private static OpenVpnHeader reset(int opcode, long sid, long... acks) {
        OpenVpnHeader h = new OpenVpnHeader();
        h.reset();
        h.kind = OpenVpnHeader.Kind.CONTROL;
        h.opcode = opcode;
        h.sessionId = sid;
        h.messagePacketId = 0;
        h.ackCount = acks.length;
        for (int i = 0; i < acks.length; i++) {
            h.ackIds[i] = acks[i];
        }
        h.remoteSessionId = acks.length > 0 ? 0x11 : 0;
        return h;
    }

    private static OpenVpnHeader data() {
        OpenVpnHeader h = new OpenVpnHeader();
        h.reset();
        h.kind = OpenVpnHeader.Kind.DATA;
        h.opcode = OpenVpnOpcode.DATA_V2;
        return h;
    }

    @Test
    void bothDirectionsAreOneFlowIdleFlowsAreReportedByTheFirstSweepPastTheirDeadlineAndEachSessionOnce() {
        // flow A (10.0.0.1:5000 - 10.0.0.9:1194): data before any session, then the reset and its answer
        send(DecodeStatus.UDP, 1, 5000, 9, 1194, 0, data());
        send(DecodeStatus.UDP, 1, 5000, 9, 1194, 1 * MS, reset(OpenVpnOpcode.HARD_RESET_CLIENT_V2, 0x11));
        send(DecodeStatus.UDP, 9, 1194, 1, 5000, 2 * MS, reset(OpenVpnOpcode.HARD_RESET_SERVER_V2, 0x22, 0));
        // flow B (10.0.0.3:6000): packets at 10 s (a sweep: 10 s after the first at 0), 300 s (a sweep:
        // A's deadline 300.002 s not reached), 300.5 s (no sweep: 0.5 s after the last) and 301 s
        // (exactly 1 s after the last sweep: a sweep, A is idle)
        send(DecodeStatus.UDP, 3, 6000, 9, 1194, 10 * S, reset(OpenVpnOpcode.HARD_RESET_CLIENT_V2, 0x33));
        send(DecodeStatus.UDP, 3, 6000, 9, 1194, 300 * S, data());
        send(DecodeStatus.UDP, 3, 6000, 9, 1194, 300 * S + 500 * MS, data());
        assertThat(reported).isEmpty();
        send(DecodeStatus.UDP, 3, 6000, 9, 1194, 301 * S, data());
        assertThat(reported).hasSize(1);
        OpenVpnSession a = reported.get(0);
        assertThat(a.client()).isEqualTo("10.0.0.1:5000");
        assertThat(a.c2s().controlPackets()).isEqualTo(1);
        assertThat(a.s2c().controlPackets()).isEqualTo(1);
        assertThat(a.transport()).isEqualTo("udp");
        tracker.flush();
        tracker.flush();
        assertThat(reported).hasSize(2);
        assertThat(reported.get(1).client()).isEqualTo("10.0.0.3:6000");
        assertThat(reported.get(1).c2s().dataPackets()).isEqualTo(3);
        assertThat(tracker.sessionsStarted()).isEqualTo(2);
        assertThat(tracker.dataWithoutSession()).isEqualTo(1);
    }

    @Test
    void tcpPacketsMakeTcpSessionsAndOtherPacketsAreIgnored() {
        send(DecodeStatus.NOT_TCP, 1, 5000, 9, 1194, 0, reset(OpenVpnOpcode.HARD_RESET_CLIENT_V2, 0x11));
        send(DecodeStatus.TCP, 4, 7000, 9, 1194, MS, reset(OpenVpnOpcode.HARD_RESET_CLIENT_V2, 0x44));
        tracker.flush();
        assertThat(reported).hasSize(1);
        assertThat(reported.get(0).client()).isEqualTo("10.0.0.4:7000");
        assertThat(reported.get(0).transport()).isEqualTo("tcp");
        assertThat(tracker.sessionsStarted()).isEqualTo(1);
    }
}
