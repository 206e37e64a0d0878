package io.flowtrace.core.openvpn;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Retransmission causes, backoff and setup on hand-made sequences following reliable.c's rules
 * (OpenVPN 2.6): 2 s initial timeout doubling per send, early resend after 3 ACK ids above the
 * packet's, and the server's stateless reset answer.
 */
class RetransmitClassificationTest {
    private static final long MS = 1_000_000L;
    private static final long CLIENT = 0x1111L;
    private static final long SERVER = 0x2222L;

    private final OpenVpnSession s = new OpenVpnSession("test", "10.0.0.1:5000", "10.0.0.2:1194", 0);

    private void control(boolean fromClient, int opcode, long mpid, int payload, long tMs, long... acks) {
        OpenVpnHeader h = new OpenVpnHeader();
        h.reset();
        h.kind = OpenVpnHeader.Kind.CONTROL;
        h.opcode = opcode;
        h.keyId = 0;
        h.sessionId = fromClient ? CLIENT : SERVER;
        h.messagePacketId = mpid;
        h.payloadLength = payload;
        h.ackCount = acks.length;
        for (int i = 0; i < acks.length; i++) {
            h.ackIds[i] = acks[i];
        }
        h.remoteSessionId = fromClient ? SERVER : CLIENT;
        s.onPacket(h, fromClient, tMs * MS);
    }

    private void ack(boolean fromClient, long tMs, long... acks) {
        OpenVpnHeader h = new OpenVpnHeader();
        h.reset();
        h.kind = OpenVpnHeader.Kind.ACK;
        h.opcode = OpenVpnOpcode.ACK_V1;
        h.keyId = 0;
        h.ackCount = acks.length;
        for (int i = 0; i < acks.length; i++) {
            h.ackIds[i] = acks[i];
        }
        s.onPacket(h, fromClient, tMs * MS);
    }

    private void data(boolean fromClient, long tMs) {
        OpenVpnHeader h = new OpenVpnHeader();
        h.reset();
        h.kind = OpenVpnHeader.Kind.DATA;
        h.opcode = OpenVpnOpcode.DATA_V2;
        h.keyId = 0;
        s.onPacket(h, fromClient, tMs * MS);
    }

    @Test
    void timerDrivenResendsShowTheDoublingSchedule() {
        // client reset at 0, lost twice: resent after 2 s, then 4 s (gaps 2000, 4000 ms; ratio 2)
        control(true, OpenVpnOpcode.HARD_RESET_CLIENT_V2, 0, 0, 0);
        control(true, OpenVpnOpcode.HARD_RESET_CLIENT_V2, 0, 0, 2000);
        control(true, OpenVpnOpcode.HARD_RESET_CLIENT_V2, 0, 0, 6000);
        OpenVpnDirectionStats c2s = s.c2s();
        assertThat(c2s.retransmits()).isEqualTo(2);
        assertThat(c2s.retransmits(RetransmitCause.TIMEOUT)).isEqualTo(2);
        assertThat(c2s.retransmitGapsUs()).containsExactly(2_000_000L, 4_000_000L);
        assertThat(c2s.initialTimeoutUs()).isEqualTo(2_000_000.0);
        assertThat(c2s.backoffRatio()).isEqualTo(2.0);
    }

    @Test
    void aResendAfterThreeLaterAcksIsEarlyAndAServerResetRepeatIsAnAnswer() {
        control(true, OpenVpnOpcode.HARD_RESET_CLIENT_V2, 0, 0, 0);
        control(false, OpenVpnOpcode.HARD_RESET_SERVER_V2, 0, 0, 1, 0);
        control(true, OpenVpnOpcode.HARD_RESET_CLIENT_V2, 0, 0, 1500); // the client did not get it
        control(false, OpenVpnOpcode.HARD_RESET_SERVER_V2, 0, 0, 1501, 0); // answered again: not a timer
        // server sends 1..4; 1 is lost; the client ACKs 2, 3, 4 (3 ids above 1) -> server resends 1 early
        for (int id = 1; id <= 4; id++) {
            control(false, OpenVpnOpcode.CONTROL_V1, id, 1000, 1600 + id);
        }
        ack(true, 1610, 2);
        ack(true, 1611, 3, 2);
        control(false, OpenVpnOpcode.CONTROL_V1, 1, 1000, 1620);
        OpenVpnDirectionStats s2c = s.s2c();
        assertThat(s2c.retransmits(RetransmitCause.RESET_ANSWER)).isEqualTo(1);
        assertThat(s2c.retransmits(RetransmitCause.EARLY_AFTER_LATER_ACKS)).isEqualTo(1);
        assertThat(s2c.retransmits(RetransmitCause.TIMEOUT)).isZero();
        assertThat(s2c.retransmitGapsUs()).containsExactly(1_500_000L, 19_000L);
        assertThat(s.c2s().retransmits(RetransmitCause.TIMEOUT)).isEqualTo(1);
        // ACK latency of server id 2: sent at 1602, first ACKed at 1610 -> 8 ms
        assertThat(s2c.ackLatencyUs().min()).isEqualTo(8_000);
    }

    @Test
    void setupEndsAtTheFirstDataPacketOrElseAtTheAckCompletingTheServersMessages() {
        control(true, OpenVpnOpcode.HARD_RESET_CLIENT_V2, 0, 0, 100);
        control(false, OpenVpnOpcode.HARD_RESET_SERVER_V2, 0, 0, 101, 0);
        control(true, OpenVpnOpcode.CONTROL_V1, 1, 300, 102, 0);
        control(false, OpenVpnOpcode.CONTROL_V1, 1, 1200, 110, 1);
        control(false, OpenVpnOpcode.CONTROL_V1, 2, 1200, 111);
        ack(true, 115, 2); // id 1 lost on the way: not complete yet
        assertThat(s.setupCompleted()).isFalse();
        assertThat(s.setupNanos()).isEqualTo(-1);
        ack(true, 2200, 1, 2); // after the server's resend of 1 (not fed here): complete at 2200
        assertThat(s.setupEnd()).isEqualTo(OpenVpnSession.SetupEnd.CONTROL);
        assertThat(s.setupNanos()).isEqualTo((2200 - 100) * MS);
        data(true, 2300);
        assertThat(s.setupEnd()).isEqualTo(OpenVpnSession.SetupEnd.DATA);
        assertThat(s.setupNanos()).isEqualTo((2300 - 100) * MS);
        assertThat(s.controlExchangeNanos()).isEqualTo((2200 - 100) * MS);
    }

    @Test
    void threeTimerResendsGiveTheirGapsTheFirstTimeoutAndTheMeanRatio() {
        // client reset at 0 s, lost three times: resent at 2, 6 and 14 s (gaps 2, 4, 8 s: ratios 2 and 2)
        for (long t : new long[] {0, 2000, 6000, 14000}) {
            control(true, OpenVpnOpcode.HARD_RESET_CLIENT_V2, 0, 0, t);
        }
        OpenVpnDirectionStats c2s = s.c2s();
        assertThat(c2s.timeoutGapsUs()).containsExactly(2_000_000L, 4_000_000L, 8_000_000L);
        assertThat(c2s.initialTimeoutUs()).isEqualTo(2_000_000.0);
        assertThat(c2s.backoffRatio()).isEqualTo((2.0 + 2.0) / 2);
    }

    @Test
    void aResendOneWholeTickAfterItsCopyCanBeTheTimerOneJustUnderCannot() {
        // reliable.c's "now" counts whole seconds: a resend 1 s after the copy can be timer-driven,
        // one 999 ms after it cannot (no ACK ids at all here, so only the gap decides)
        control(false, OpenVpnOpcode.CONTROL_V1, 1, 1000, 0);
        control(false, OpenVpnOpcode.CONTROL_V1, 1, 1000, 1000);
        control(false, OpenVpnOpcode.CONTROL_V1, 1, 1000, 1999);
        assertThat(s.s2c().retransmitCauses())
                .containsExactly(RetransmitCause.TIMEOUT, RetransmitCause.EARLY_AFTER_LATER_ACKS);
    }

    @Test
    void theAckOfThePacketItselfIsNotALaterAck() {
        // server ids 1-3; the client ACKs 1, 2 and 3: two ids above 1, one short of N_ACK_RETRANSMIT = 3,
        // so the resend of 1 at 1.2 s is the timer's (and a duplicate: its ACK was already seen)
        for (int id = 1; id <= 3; id++) {
            control(false, OpenVpnOpcode.CONTROL_V1, id, 1000, id);
        }
        ack(true, 10, 1, 2, 3);
        control(false, OpenVpnOpcode.CONTROL_V1, 1, 1000, 1200);
        assertThat(s.s2c().retransmitCauses()).containsExactly(RetransmitCause.TIMEOUT);
        assertThat(s.s2c().duplicates()).isEqualTo(1);
    }

    @Test
    void controlPayloadBytesCountEveryCopyOfTheInitialKeyOnly() {
        control(false, OpenVpnOpcode.CONTROL_V1, 1, 1200, 0);
        control(false, OpenVpnOpcode.CONTROL_V1, 1, 1200, 2000); // a copy counts again
        control(false, OpenVpnOpcode.CONTROL_V1, 2, 300, 2001);
        assertThat(s.s2c().controlPayloadBytes()).isEqualTo(1200 + 1200 + 300);
        assertThat(s.s2c().controlPackets()).isEqualTo(3);
    }

    @Test
    void gapsAndCausesAreListedForTheFirst512RetransmissionsAndCountedBeyond() {
        // 600 timer resends of the client reset, 2 s apart
        for (int i = 0; i <= 600; i++) {
            control(true, OpenVpnOpcode.HARD_RESET_CLIENT_V2, 0, 0, 2000L * i);
        }
        OpenVpnDirectionStats c2s = s.c2s();
        assertThat(c2s.retransmits()).isEqualTo(600);
        assertThat(c2s.retransmitGapsUs()).hasSize(512).containsOnly(2_000_000L);
        assertThat(c2s.retransmitCauses()).hasSize(512);
        assertThat(c2s.retransmitTimesNanos()).hasSize(512);
        assertThat(c2s.timeoutGapsUs()).hasSize(512);
    }

    @Test
    void theLast1024PacketIdsAreRememberedAResendOfAnOlderOneIsNew() {
        // ids 1-1025: id 1 is forgotten, id 2 is the oldest remembered
        for (int id = 1; id <= 1025; id++) {
            control(false, OpenVpnOpcode.CONTROL_V1, id, 100, id);
        }
        control(false, OpenVpnOpcode.CONTROL_V1, 2, 100, 3000);
        assertThat(s.s2c().retransmits()).isEqualTo(1);
        control(false, OpenVpnOpcode.CONTROL_V1, 1, 100, 3001);
        assertThat(s.s2c().retransmits()).isEqualTo(1);
    }

    @Test
    void onlyServerMessagesCarryingPayloadMustBeAckedAndTheLastOfThemEndsThePush() {
        control(true, OpenVpnOpcode.HARD_RESET_CLIENT_V2, 0, 0, 100);
        control(false, OpenVpnOpcode.HARD_RESET_SERVER_V2, 0, 0, 101, 0);
        control(true, OpenVpnOpcode.CONTROL_V1, 1, 300, 102); // its ACK of the server's reset not seen
        control(false, OpenVpnOpcode.CONTROL_V1, 1, 1200, 110, 1);
        control(false, OpenVpnOpcode.CONTROL_V1, 2, 0, 111); // no payload: not part of the push
        ack(true, 120, 1);
        // the server's reset (id 0) and id 2 carried no payload: the ACK of 1 completes the exchange
        assertThat(s.setupEnd()).isEqualTo(OpenVpnSession.SetupEnd.CONTROL);
        assertThat(s.setupNanos()).isEqualTo((120 - 100) * MS);
        assertThat(s.lastServerControlNanos()).isEqualTo(110 * MS);
    }

    @Test
    void causesAreNamedAsTheReportsFieldsAre() {
        // docs/metrics.md, OpenVPN sessions: retransmits_by_cause.timeout, .early_after_later_acks, .reset_answer
        assertThat(RetransmitCause.values())
                .extracting(RetransmitCause::jsonName)
                .containsExactly("timeout", "early_after_later_acks", "reset_answer");
    }
}
