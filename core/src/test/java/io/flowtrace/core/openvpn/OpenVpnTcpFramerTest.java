package io.flowtrace.core.openvpn;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** OpenVPN's 2-byte length framing on a TCP stream, on literal bytes. */
class OpenVpnTcpFramerTest {
    /** P_CONTROL_HARD_RESET_CLIENT_V2 (7 << 3 | key 0), session id 0x0102030405060708, no ACKs, packet-id 0. */
    private static final byte[] RESET = {0x38, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0, 0};
    /** P_ACK_V1 (5 << 3), session id 0x1112131415161718, 1 ACK of packet-id 0, remote session id of the reset. */
    private static final byte[] ACK = {
        0x28, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 1, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8
    };
    /** The stream: 00 0e RESET 00 16 ACK. */
    private static final byte[] STREAM = concat(new byte[] {0x00, 0x0e}, RESET, new byte[] {0x00, 0x16}, ACK);

    @Test
    void framesPacketsThatSpanAndShareSegmentsAndIgnoresARetransmission() {
        List<byte[]> out = new ArrayList<>();
        OpenVpnTcpFramer f =
                new OpenVpnTcpFramer((b, off, kept, len, t) -> out.add(Arrays.copyOfRange(b, off, off + kept)));
        long isn = 0xfffffff0L; // the stream wraps the 32-bit sequence space inside the second packet
        feed(f, isn, 0, 1); // half of the first prefix
        feed(f, isn + 1, 1, 9); // rest of the prefix, 7 bytes of the reset
        feed(f, isn + 1, 1, 9); // retransmission of that segment
        feed(f, isn + 9, 9, 20); // rest of the reset, the second prefix, 2 bytes of the ACK
        feed(f, isn + 20, 20, STREAM.length);
        assertThat(out).hasSize(2);
        assertThat(out.get(0)).isEqualTo(RESET);
        assertThat(out.get(1)).isEqualTo(ACK);
        assertThat(f.repeatedBytes()).isEqualTo(8);
        assertThat(f.desynchronised()).isFalse();

        OpenVpnHeaderDecoder d = new OpenVpnHeaderDecoder(OpenVpnWire.defaults());
        OpenVpnHeader h = new OpenVpnHeader();
        assertThat(d.decode(out.get(0), 0, RESET.length, RESET.length, h)).isEqualTo(OpenVpnHeader.Kind.CONTROL);
        assertThat(h.opcode).isEqualTo(OpenVpnOpcode.HARD_RESET_CLIENT_V2);
        assertThat(h.sessionId).isEqualTo(0x0102030405060708L);
        assertThat(h.messagePacketId).isZero();
        assertThat(d.decode(out.get(1), 0, ACK.length, ACK.length, h)).isEqualTo(OpenVpnHeader.Kind.ACK);
        assertThat(h.ackCount).isEqualTo(1);
        assertThat(h.ackIds[0]).isZero();
        assertThat(h.remoteSessionId).isEqualTo(0x0102030405060708L);
    }

    @Test
    void keepsThePrefixAskedForAndStillFramesByTheWholeLength() {
        List<int[]> lengths = new ArrayList<>();
        List<byte[]> kept = new ArrayList<>();
        OpenVpnTcpFramer f = new OpenVpnTcpFramer(4, (b, off, n, len, t) -> {
            kept.add(Arrays.copyOfRange(b, off, off + n));
            lengths.add(new int[] {n, len});
        });
        feed(f, 7, 0, 9); // a segment boundary inside the reset's kept prefix and after it
        feed(f, 16, 9, STREAM.length);
        // the stream's prefixes say 14 and 22 bytes (00 0e, 00 16): both packets found, 4 bytes of each kept
        assertThat(lengths).containsExactly(new int[] {4, RESET.length}, new int[] {4, ACK.length});
        assertThat(kept.get(0)).isEqualTo(Arrays.copyOf(RESET, 4));
        assertThat(kept.get(1)).isEqualTo(Arrays.copyOf(ACK, 4));
    }

    @Test
    void aGapInTheStreamStopsFramingThatDirectionInsteadOfGuessing() {
        List<byte[]> out = new ArrayList<>();
        OpenVpnTcpFramer f =
                new OpenVpnTcpFramer((b, off, kept, len, t) -> out.add(Arrays.copyOfRange(b, off, off + kept)));
        feed(f, 1000, 0, 5);
        feed(f, 1010, 10, STREAM.length); // bytes 5..9 never captured
        assertThat(f.desynchronised()).isTrue();
        assertThat(out).isEmpty();
        // a snap length that cut a segment is a gap as well
        OpenVpnTcpFramer cut = new OpenVpnTcpFramer((b, off, kept, len, t) -> out.add(b));
        cut.onSegment(1, STREAM, 0, 10, STREAM.length, 0);
        assertThat(cut.desynchronised()).isTrue();
        assertThat(out).isEmpty();
    }

    private static void feed(OpenVpnTcpFramer f, long seq, int from, int to) {
        byte[] seg = Arrays.copyOfRange(STREAM, from, to);
        f.onSegment(seq & 0xffffffffL, seg, 0, seg.length, seg.length, from);
    }

    private static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] out = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        return out;
    }
}
