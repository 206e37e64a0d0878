package io.flowtrace.core.openvpn;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * OpenVPN 2.6 resends a message packet-id before its timer once the peer has ACKed
 * N_ACK_RETRANSMIT = 3 later ids since the last copy (src/openvpn/reliable.h, reliable_send_purge).
 * Hand-made sequences that only that threshold decides: each resend comes 1.2 s after its copy, past
 * the one-second tick below which every resend counts as early (RetransmitCause), so only the count
 * of later ACK ids decides: 3 ids make it early, 2 leave it to the timer class.
 */
class EarlyResendThresholdTest {
    private static final long MS = 1_000_000L;
    private final OpenVpnSession s = new OpenVpnSession("test", "10.0.0.1:5000", "10.0.0.2:1194", 0);

    private void control(long mpid, long tMs, long... acks) {
        OpenVpnHeader h = header(OpenVpnHeader.Kind.CONTROL, OpenVpnOpcode.CONTROL_V1, acks);
        h.sessionId = 0x2222L;
        h.remoteSessionId = 0x1111L;
        h.messagePacketId = mpid;
        h.payloadLength = 1000;
        s.onPacket(h, false, tMs * MS);
    }

    private void clientAck(long tMs, long... acks) {
        s.onPacket(header(OpenVpnHeader.Kind.ACK, OpenVpnOpcode.ACK_V1, acks), true, tMs * MS);
    }

    private static OpenVpnHeader header(OpenVpnHeader.Kind kind, int opcode, long... acks) {
        OpenVpnHeader h = new OpenVpnHeader();
        h.reset();
        h.kind = kind;
        h.opcode = opcode;
        h.keyId = 0;
        h.ackCount = acks.length;
        for (int i = 0; i < acks.length; i++) {
            h.ackIds[i] = acks[i];
        }
        return h;
    }

    @Test
    void threeLaterAckIdsMakeAResendEarlyTwoDoNot() {
        // ids 1..4 at 0-3 ms; 1 lost; the client ACKs 2, 3, 4: three ids above 1
        for (int id = 1; id <= 4; id++) {
            control(id, id - 1);
        }
        clientAck(10, 2);
        clientAck(11, 3);
        clientAck(12, 4);
        control(1, 1200);
        assertThat(s.s2c().retransmits(RetransmitCause.EARLY_AFTER_LATER_ACKS)).isEqualTo(1);
        assertThat(s.s2c().retransmits(RetransmitCause.TIMEOUT)).isZero();
        // ids 5..7 at 2000-2002 ms; 5 lost; the client ACKs 6 and 7 only: two ids above 5
        for (int id = 5; id <= 7; id++) {
            control(id, 1995 + id);
        }
        clientAck(2010, 6);
        clientAck(2011, 7);
        control(5, 3200);
        assertThat(s.s2c().retransmits(RetransmitCause.EARLY_AFTER_LATER_ACKS)).isEqualTo(1);
        assertThat(s.s2c().retransmits(RetransmitCause.TIMEOUT)).isEqualTo(1);
    }
}
