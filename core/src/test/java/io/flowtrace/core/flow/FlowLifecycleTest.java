package io.flowtrace.core.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowtrace.core.flow.FlowLifecycle.Close;
import io.flowtrace.core.flow.FlowLifecycle.Wake;
import io.flowtrace.core.pcap.DecodedPacket;
import io.flowtrace.core.tcp.AnalyzerConfig;
import io.flowtrace.core.tcp.TcpEventSink;
import io.flowtrace.core.tcp.TcpFlowEnd;
import io.flowtrace.core.testing.Conversation;
import org.junit.jupiter.api.Test;

/**
 * Hand-worked timelines of one flow key through the lifecycle, as an adapter drives it: start or
 * continue an instance, take the packet's time, analyse it, ask for the close update and the next
 * wake-up; wake up at a time. The timeouts are the ones written here (idle 300 s, half-open 30 s,
 * the 10 s linger of a closed flow), periodic updates every 60 s; every expected time is worked
 * out in a comment from the packets' times.
 */
class FlowLifecycleTest {
    private static final long S = 1_000_000_000L;
    private static final long MS = 1_000_000L;
    /** 2023-11-14T22:13:20Z: the first packet's time of every timeline, in ns. */
    private static final long T0 = 1_700_000_000L * S;

    private static final long T0_MS = 1_700_000_000_000L;
    private static final AnalyzerConfig CONFIG = AnalyzerConfig.DEFAULTS.withIdleTimeouts(300 * S, 30 * S);
    private static final long UPDATE_MS = 60_000;

    private static final int SYN = DecodedPacket.SYN;
    private static final int ACK = DecodedPacket.ACK;
    private static final int FIN = DecodedPacket.FIN;
    private static final int RST = DecodedPacket.RST;

    private final FlowLifecycle offline = FlowLifecycle.offline(CONFIG);
    private final FlowLifecycle streaming = FlowLifecycle.streaming(CONFIG, UPDATE_MS);
    private final FlowLifecycle.State s = new FlowLifecycle.State();
    private final Conversation conversation = new Conversation(this::adapt);
    /** The packet last handed over (the conversation reuses one). */
    private DecodedPacket p;

    private FlowLifecycle life;
    private Close closeUpdate;

    /** What an adapter does with one packet; returns what the lifecycle asked for at the close. */
    private Close packet(FlowLifecycle life, long nanos, boolean fromClient, int flags, long seq, long ack) {
        this.life = life;
        Conversation.Packet packet = fromClient ? conversation.client(nanos / 1000) : conversation.server(nanos / 1000);
        packet.flags(flags).seq(seq);
        if ((flags & ACK) != 0) {
            packet.ack(ack);
        }
        packet.send();
        return closeUpdate;
    }

    private void adapt(DecodedPacket packet) {
        p = packet;
        if (s.flow == null || life.startsNewInstance(s, p)) {
            life.start(s, p);
        }
        life.seen(s, p.timestampNanos, Long.MIN_VALUE);
        s.flow.onPacket(p, TcpEventSink.NONE);
        closeUpdate = life.closeUpdate(s, Math.floorDiv(p.timestampNanos, MS));
    }

    /** SYN (ISN 100), SYN-ACK (ISN 7000), ACK: established at {@code t} + 2 ms. */
    private void handshake(FlowLifecycle life, long t) {
        packet(life, t, true, SYN, 100, 0);
        packet(life, t + MS, false, SYN | ACK, 7000, 101);
        packet(life, t + 2 * MS, true, ACK, 101, 7001);
    }

    @Test
    void startsANewInstanceWhenASynReusesThePortsOfAClosedFlow() {
        handshake(offline, T0);
        packet(offline, T0 + 3 * MS, true, RST | ACK, 101, 7001);
        assertThat(s.flow.end()).isEqualTo(TcpFlowEnd.RST);

        // 1 s later, well inside the 10 s linger, a SYN on the same ports with another ISN
        p.timestampNanos = T0 + S;
        p.flags = SYN;
        p.seq = 900_000;
        assertThat(offline.startsNewInstance(s, p)).isTrue();
        packet(offline, T0 + S, true, SYN, 900_000, 0);

        // the new instance's id is its first packet's time in µs: T0 + 1 s = 1 700 000 001 000 000 µs
        assertThat(s.instance).isEqualTo(1_700_000_001_000_000L);
        assertThat(s.flow.closed()).isFalse();
        assertThat(s.lastSeenNanos).isEqualTo(T0 + S);
    }

    @Test
    void keepsARetriedSynBeforeEstablishmentInTheSameInstanceButNotAnotherIsnOnAnEstablishedFlow() {
        packet(offline, T0, true, SYN, 100, 0);
        p.timestampNanos = T0 + S;
        p.seq = 555; // a retry with a new ISN, 1 s later: the handshake never completed
        assertThat(offline.startsNewInstance(s, p)).isFalse();

        handshake(offline, T0 + 2 * S);
        p.timestampNanos = T0 + 3 * S;
        p.flags = SYN;
        p.seq = 555; // established with ISN 100: another ISN is a new connection on the same ports
        assertThat(offline.startsNewInstance(s, p)).isTrue();
        p.flags = SYN | ACK; // a SYN-ACK never starts one
        assertThat(offline.startsNewInstance(s, p)).isFalse();
    }

    @Test
    void expiresAnEstablishedFlowAfterItsIdleTimeoutMarkedIdle() {
        handshake(streaming, T0);
        // last seen T0 + 2 ms; idle 300 s: expired from T0 + 300.002 s on, not a nanosecond before
        assertThat(offline.expired(s, T0 + 2 * MS + 300 * S - 1)).isFalse();
        assertThat(offline.expired(s, T0 + 2 * MS + 300 * S)).isTrue();

        // the job's wake-ups: the periodic updates at T0 + 60 s, 120 s, ... 300 s come first
        for (long at = T0_MS + 60_000; at <= T0_MS + 300_000; at += 60_000) {
            assertThat(streaming.wakeMs(s)).isEqualTo(at);
            assertThat(streaming.wake(s, at, false)).isEqualTo(Wake.UPDATE);
            streaming.updated(s, at);
        }
        // next update T0 + 360 s; the deadline T0 + 300.002 s is earlier
        assertThat(streaming.wakeMs(s)).isEqualTo(T0_MS + 300_002);
        assertThat(streaming.wake(s, T0_MS + 300_002, false)).isEqualTo(Wake.END);
        assertThat(s.flow.end()).isEqualTo(TcpFlowEnd.IDLE);
    }

    @Test
    void expiresAHandshakeThatNeverCompletedAfterTheHalfOpenTimeout() {
        packet(offline, T0, true, SYN, 100, 0);
        packet(offline, T0 + S, true, SYN, 100, 0); // retransmitted SYN, last seen T0 + 1 s
        // half-open 30 s from the last packet: T0 + 31 s, much sooner than the idle 300 s
        assertThat(offline.expired(s, T0 + 31 * S - 1)).isFalse();
        assertThat(offline.expired(s, T0 + 31 * S)).isTrue();
        assertThat(offline.wakeMs(s)).isEqualTo(T0_MS + 31_000); // offline: no periodic update first
        offline.expire(s);
        assertThat(s.flow.end()).isEqualTo(TcpFlowEnd.IDLE);
    }

    @Test
    void lingersTenSecondsAfterTheLastPacketOfAClosedFlowAndKeepsItsEnd() {
        handshake(streaming, T0);
        packet(streaming, T0 + 5 * MS, true, FIN | ACK, 101, 7001);
        packet(streaming, T0 + 6 * MS, false, FIN | ACK, 7001, 102);
        packet(streaming, T0 + 7 * MS, true, ACK, 102, 7002);
        assertThat(s.flow.end()).isEqualTo(TcpFlowEnd.FIN);
        // closed; last packet T0 + 7 ms, linger 10 s: T0 + 10.007 s
        assertThat(streaming.wakeMs(s)).isEqualTo(T0_MS + 10_007);
        assertThat(streaming.wake(s, T0_MS + 10_006, false)).isEqualTo(Wake.SLEEP);
        assertThat(streaming.wake(s, T0_MS + 10_007, false)).isEqualTo(Wake.END);
        assertThat(s.flow.end()).isEqualTo(TcpFlowEnd.FIN); // not marked idle: it closed
    }

    @Test
    void aFlowClosingBeforeItsFirstPeriodicUpdateHasOnlyItsRowAtTheCloseThenItsFinalVersion() {
        handshake(streaming, T0);
        // RST at T0 + 1 s, before the first update at T0 + 60 s: no close update, only the row; decided once
        assertThat(packet(streaming, T0 + S, true, RST | ACK, 101, 7001)).isEqualTo(Close.ROW);
        assertThat(s.closeReported).isTrue();
        assertThat(packet(streaming, T0 + 2 * S, true, RST | ACK, 101, 7001)).isEqualTo(Close.NONE);
        // the final version after the linger: last packet T0 + 2 s + 10 s = T0 + 12 s
        assertThat(streaming.wakeMs(s)).isEqualTo(T0_MS + 12_000);
        assertThat(streaming.wake(s, T0_MS + 12_000, false)).isEqualTo(Wake.END);
    }

    @Test
    void decidesTheCloseRowAtTheSecondFinNotAtTheFirstOrTheLastAck() {
        handshake(streaming, T0);
        // the client's FIN at T0 + 5 ms: half closed, nothing yet
        assertThat(packet(streaming, T0 + 5 * MS, true, FIN | ACK, 101, 7001)).isEqualTo(Close.NONE);
        // the server's FIN at T0 + 6 ms completes the exchange, 59.994 s before the first update
        assertThat(packet(streaming, T0 + 6 * MS, false, FIN | ACK, 7001, 102)).isEqualTo(Close.ROW);
        // the last ACK at T0 + 7 ms: decided already
        assertThat(packet(streaming, T0 + 7 * MS, true, ACK, 102, 7002)).isEqualTo(Close.NONE);
    }

    @Test
    void aCloseAtTheFirstUpdatesTimeBeforeItsTimerFiredGetsTheCloseUpdate() {
        handshake(streaming, T0);
        // first update due at T0 + 60 s (first packet + 60 s); a RST 1 ms before it: the row only
        assertThat(packet(streaming, T0 + 59_999 * MS, true, RST | ACK, 101, 7001))
                .isEqualTo(Close.ROW);

        // the same timeline again (a fresh instance), the RST at T0 + 60 s exactly, the update's timer
        // not fired yet (the watermark lags): the update was due, so the close is an update of its own
        s.flow = null;
        handshake(streaming, T0);
        assertThat(packet(streaming, T0 + 60 * S, true, RST | ACK, 101, 7001)).isEqualTo(Close.UPDATE);
    }

    @Test
    void aFlowClosingAfterAPeriodicUpdateGetsOneCloseUpdateAndNoMorePeriodicOnes() {
        handshake(streaming, T0);
        assertThat(streaming.wake(s, T0_MS + 60_000, false)).isEqualTo(Wake.UPDATE);
        streaming.updated(s, T0_MS + 60_000);
        // RST at T0 + 70 s, after the update at T0 + 60 s: the close update, once
        assertThat(packet(streaming, T0 + 70 * S, true, RST | ACK, 101, 7001)).isEqualTo(Close.UPDATE);
        assertThat(packet(streaming, T0 + 71 * S, true, RST | ACK, 101, 7001)).isEqualTo(Close.NONE);
        // the linger ends at T0 + 81 s, the next update was due at T0 + 120 s: the linger first
        assertThat(streaming.wakeMs(s)).isEqualTo(T0_MS + 81_000);
        assertThat(streaming.wake(s, T0_MS + 81_000, false)).isEqualTo(Wake.END);
    }

    @Test
    void skipsAPeriodicUpdateOfAClosedFlowButMovesItsSchedule() {
        // a 1 s update interval: the closed flow's linger spans several due updates
        FlowLifecycle everySecond = FlowLifecycle.streaming(CONFIG, 1_000);
        handshake(everySecond, T0);
        assertThat(everySecond.wake(s, T0_MS + 1_000, false)).isEqualTo(Wake.UPDATE);
        everySecond.updated(s, T0_MS + 1_000);
        assertThat(packet(everySecond, T0 + 1_500 * MS, true, RST | ACK, 101, 7001))
                .isEqualTo(Close.UPDATE);
        // the update due at T0 + 2 s is skipped (the close update stands) and the next is T0 + 3 s
        assertThat(everySecond.wake(s, T0_MS + 2_000, false)).isEqualTo(Wake.SLEEP);
        assertThat(s.nextUpdateMs).isEqualTo(T0_MS + 3_000);
    }

    @Test
    void aWakeUpThatFindsTheDeadlineMovedLaterSleepsUntilTheNewOne() {
        packet(offline, T0, true, SYN, 100, 0);
        // half-open: asked to wake at T0 + 30 s; a retransmitted SYN at T0 + 20 s moves it to T0 + 50 s
        assertThat(offline.wakeMs(s)).isEqualTo(T0_MS + 30_000);
        packet(offline, T0 + 20 * S, true, SYN, 100, 0);
        assertThat(offline.wake(s, T0_MS + 30_000, false)).isEqualTo(Wake.SLEEP);
        assertThat(offline.wakeMs(s)).isEqualTo(T0_MS + 50_000);
        assertThat(s.flow.closed()).isFalse();
        assertThat(offline.wake(s, T0_MS + 50_000, false)).isEqualTo(Wake.END);
    }

    @Test
    void atTheEndOfInputEndsTheFlowAsItIsAtItsCurrentWakeUp() {
        handshake(streaming, T0);
        packet(streaming, T0 + 10 * S, true, ACK, 101, 7001);
        // the wake-up asked for after the handshake (T0 + 60 s, the first update) is still current
        assertThat(streaming.wake(s, T0_MS + 59_999, true)).isEqualTo(Wake.SLEEP);
        assertThat(streaming.wake(s, T0_MS + 60_000, true)).isEqualTo(Wake.END);
        assertThat(s.flow.end()).isEqualTo(TcpFlowEnd.OPEN); // reported as it is, not expired
    }

    @Test
    void measuresExpiryFromTheWatermarkALatePacketArrivedAt() {
        handshake(offline, T0);
        // a packet captured at T0 + 1 s arrives when the watermark is T0 + 100 s
        assertThat(offline.seen(s, T0 + S, T0_MS + 100_000)).isTrue();
        assertThat(s.lastSeenNanos).isEqualTo(T0 + S);
        // idle 300 s from the watermark, not from the capture time: T0 + 400 s
        assertThat(offline.wakeMs(s)).isEqualTo(T0_MS + 400_000);
        assertThat(offline.seen(s, T0 + 101 * S, T0_MS + 100_000)).isFalse();
    }

    /** An interval below 1 ms would wake a flow at every timer: refused, and by the check a job runs when it is built. */
    @Test
    void streamingRefusesAnUpdateIntervalBelowOneMillisecond() {
        assertThat(FlowLifecycle.checkedUpdateInterval(1)).isEqualTo(1);
        for (long ms : new long[] {0, -60_000}) {
            assertThatThrownBy(() -> FlowLifecycle.checkedUpdateInterval(ms))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("update interval must be positive, got " + ms + " ms");
            assertThatThrownBy(() -> FlowLifecycle.streaming(CONFIG, ms)).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
