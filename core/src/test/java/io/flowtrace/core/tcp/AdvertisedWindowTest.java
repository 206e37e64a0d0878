package io.flowtrace.core.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.core.net.Endpoint;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.core.testing.Conversation;
import org.junit.jupiter.api.Test;

/**
 * Hand-worked handshakes for the window figures (RFC 7323 §2.2-2.3): the cases no committed capture
 * has (AdvertisedWindowTruthTest covers the real ones against tshark).
 */
class AdvertisedWindowTest {
    private static final long C = 1000;
    private static final long S = 5000;

    private final TcpFlowAnalyzer flow = new TcpFlowAnalyzer(
            new Endpoint(Conversation.CLIENT, Conversation.CLIENT_PORT),
            new Endpoint(Conversation.SERVER, Conversation.SERVER_PORT),
            false,
            AnalyzerConfig.DEFAULTS);
    private final Conversation tcp = new Conversation(p -> flow.onPacket(p, TcpEventSink.NONE));

    @Test
    void scalesEveryWindowButTheSynsOnceBothSynsOfferedTheOption() {
        tcp.client(0).seq(C).flags(DecodedPacket.SYN).wscale(7).window(64240).send();
        tcp.server(100)
                .seq(S)
                .ack(C + 1)
                .flags(DecodedPacket.SYN)
                .wscale(2)
                .window(65160)
                .send();
        tcp.client(101).seq(C + 1).ack(S + 1).window(502).send(); // 502 << 7 = 64256
        tcp.server(200).seq(S + 1).ack(C + 1).window(30000).send(); // 30000 << 2 = 120000

        assertThat(flow.clientToServer().windowMinBytes).isEqualTo(64240); // the SYN, unscaled
        assertThat(flow.clientToServer().windowMaxBytes).isEqualTo(64256);
        assertThat(flow.serverToClient().windowMinBytes).isEqualTo(65160);
        assertThat(flow.serverToClient().windowMaxBytes).isEqualTo(120000);
        assertThat(AdvertisedWindow.scale(flow, true)).isEqualTo(7);
        assertThat(AdvertisedWindow.scale(flow, false)).isEqualTo(2);
    }

    @Test
    void noScalingWhenOneSynLacksTheOptionAndResetsAdvertiseNothing() {
        tcp.client(0).seq(C).flags(DecodedPacket.SYN).wscale(7).window(64240).send();
        tcp.server(100).seq(S).ack(C + 1).flags(DecodedPacket.SYN).window(65535).send();
        tcp.client(101).seq(C + 1).ack(S + 1).window(502).send(); // not shifted: scaling was not agreed
        tcp.client(300).seq(C + 1).ack(S + 1).flags(DecodedPacket.RST).window(0).send();

        assertThat(flow.clientToServer().windowMinBytes).isEqualTo(502);
        assertThat(flow.clientToServer().windowMaxBytes).isEqualTo(64240);
        assertThat(AdvertisedWindow.scale(flow, true)).isZero();
        assertThat(AdvertisedWindow.scale(flow, false)).isZero();
    }

    @Test
    void aShiftAbove14CountsAs14() {
        tcp.client(0).seq(C).flags(DecodedPacket.SYN).wscale(15).send();
        tcp.server(100).seq(S).ack(C + 1).flags(DecodedPacket.SYN).wscale(0).send();
        tcp.client(101).seq(C + 1).ack(S + 1).window(3).send();

        assertThat(flow.clientToServer().windowMaxBytes).isEqualTo(3L << 14);
        assertThat(AdvertisedWindow.scale(flow, true)).isEqualTo(14);
    }

    /**
     * A zero window is the smallest a side can advertise and stays its minimum after larger ones; the
     * window the peer may send into is the scaled one (500 << 7 = 64,000, also the largest: the
     * SYN's 29,200 is not scaled). SYN and SYN-ACK both at
     * capture time 0 (the same clock tick) are a handshake like any other: the scale is known (7).
     */
    @Test
    void aZeroWindowStaysTheMinimumAndThePeerSendsIntoTheScaledWindow() {
        tcp.client(0).seq(C).flags(DecodedPacket.SYN).wscale(7).window(29200).send(); // unscaled
        tcp.server(0)
                .seq(S)
                .ack(C + 1)
                .flags(DecodedPacket.SYN)
                .wscale(2)
                .window(65160)
                .send();
        tcp.client(1).seq(C + 1).ack(S + 1).window(0).send();
        tcp.client(2).seq(C + 1).ack(S + 1).window(500).send();

        assertThat(flow.clientToServer().windowMinBytes).isZero();
        assertThat(flow.clientToServer().windowMaxBytes).isEqualTo(64_000);
        assertThat(flow.fromServer.peerWindowBytes).isEqualTo(64_000);
        assertThat(AdvertisedWindow.scale(flow, true)).isEqualTo(7);
    }

    @Test
    void withoutTheHandshakeWindowsStayUnscaledAndTheScaleIsUnknown() {
        tcp.client(0).seq(C + 1).ack(S + 1).window(63).send();
        tcp.server(10).seq(S + 1).ack(C + 1).window(490).send();

        assertThat(flow.clientToServer().windowMaxBytes).isEqualTo(63);
        assertThat(flow.serverToClient().windowMinBytes).isEqualTo(490);
        assertThat(AdvertisedWindow.scale(flow, true)).isEqualTo(-1);
    }
}
