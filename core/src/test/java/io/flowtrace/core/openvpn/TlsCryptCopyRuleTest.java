package io.flowtrace.core.openvpn;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The tls-crypt copy inference (docs/metrics.md, "OpenVPN modes") at the edges of its rule, on a
 * hand-made sequence: a P_CONTROL_V1 is taken for a timer-driven copy when its sender's run of
 * packets began after at least one second (OpenVPN's timer tick) of its own silence and at least
 * 50 ms after the peer's last packet, no peer packet came since, and an earlier P_CONTROL_V1 of the
 * sender at least one second before differs in length by a multiple of 4 up to 40 bytes (two ACK
 * arrays). The captures (OpenVpnTlsCryptInferenceTest) never put a packet exactly on an edge.
 */
class TlsCryptCopyRuleTest {
    private static final long MS = 1_000_000L;

    private final OpenVpnSession s = new OpenVpnSession("test", "10.0.0.1:5000", "10.0.0.2:1194", 0);

    private void opaque(boolean fromClient, int opcode, int length, long tMs) {
        OpenVpnHeader h = new OpenVpnHeader();
        h.reset();
        h.kind = OpenVpnHeader.Kind.OPAQUE;
        h.opcode = opcode;
        h.keyId = 0;
        h.payloadLength = length;
        s.onPacket(h, fromClient, tMs * MS);
    }

    @Test
    void copiesExactlyOnTheEdgesOfSilenceAnswerTimeAndLengthAreInferred() {
        opaque(false, OpenVpnOpcode.CONTROL_V1, 100, 0);
        opaque(true, OpenVpnOpcode.ACK_V1, 60, 100); // the client answers: the server's run is not quiet
        // exactly one second of the server's own silence starts a new run, 900 ms after the client's
        // packet: quiet; the packet at 0 ms is exactly one tick before, same length: a copy (gap 1 s)
        opaque(false, OpenVpnOpcode.CONTROL_V1, 100, 1000);
        opaque(true, OpenVpnOpcode.ACK_V1, 60, 3000);
        // a new run exactly 50 ms after the client's packet: quiet; 40 bytes longer than the packet at
        // 1000 ms (the most an ACK array can add): a copy of it (gap 2.05 s)
        opaque(false, OpenVpnOpcode.CONTROL_V1, 140, 3050);
        OpenVpnDirectionStats s2c = s.s2c();
        assertThat(s2c.retransmitGapsUs()).containsExactly(1_000_000L, 2_050_000L);
        assertThat(s2c.retransmits(RetransmitCause.TIMEOUT)).isEqualTo(2);
        assertThat(new long[] {s2c.opaquePackets(), s.c2s().opaquePackets()}).containsExactly(3, 2);
    }

    @Test
    void justInsideEachEdgeNothingIsInferred() {
        opaque(false, OpenVpnOpcode.CONTROL_V1, 100, 0);
        opaque(true, OpenVpnOpcode.ACK_V1, 60, 100);
        opaque(false, OpenVpnOpcode.CONTROL_V1, 100, 999); // 999 ms of silence: the same, answered run
        opaque(true, OpenVpnOpcode.ACK_V1, 60, 3000);
        opaque(false, OpenVpnOpcode.CONTROL_V1, 100, 3049); // 49 ms after the client: an answer
        opaque(false, OpenVpnOpcode.CONTROL_V1, 144, 5000); // quiet, but 44 bytes longer than every earlier one
        assertThat(s.s2c().retransmits()).isZero();
    }
}
