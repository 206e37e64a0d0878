package io.flowtrace.core.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The ACK clock on its edges: a new segment at most ANSWER_NANOS = 100 µs after an advancing ACK
 * answers it; the pipe empty for more than 100 µs makes the round idle; data waited in a round only
 * when it had an advancing ACK, every one was answered and the pipe never sat idle.
 */
class AckClockTest {

    /** ACK at 1,000,000 ns: a segment 100,000 ns later (exactly 100 µs) answers it, 100,001 ns later does not. */
    @Test
    void aSegmentWithinOneHundredMicrosecondsAnswersTheAck() {
        AckClock exactly = new AckClock();
        exactly.onAdvancingAck(1_000_000);
        exactly.onNewSegment(1_100_000);
        assertThat(exactly.acks).isEqualTo(1);
        assertThat(exactly.answeredAcks).isEqualTo(1);
        assertThat(exactly.dataWaiting()).isTrue();

        AckClock late = new AckClock();
        late.onAdvancingAck(1_000_000);
        late.onNewSegment(1_100_001);
        assertThat(late.answeredAcks).isZero();
        assertThat(late.dataWaiting()).isFalse();
    }

    /**
     * Only the first segment after an ACK answers it: two ACKs, three segments right after the first
     * ACK and none after the second: 1 of 2 answered, no data waiting.
     */
    @Test
    void onlyTheFirstSegmentAfterAnAckAnswersIt() {
        AckClock c = new AckClock();
        c.onAdvancingAck(0);
        c.onNewSegment(10_000);
        c.onNewSegment(20_000);
        c.onNewSegment(30_000);
        assertThat(c.awaitingSend).isFalse();
        c.onAdvancingAck(500_000);
        assertThat(c.awaitingSend).isTrue();
        assertThat(c.acks).isEqualTo(2);
        assertThat(c.answeredAcks).isEqualTo(1);
        assertThat(c.dataWaiting()).isFalse();
    }

    /**
     * The pipe empty for exactly 100 µs is not idle, 100,001 ns is; a round without an advancing ACK
     * tells nothing (no data waiting); a new round forgets the last one's counts and idleness.
     */
    @Test
    void idleOverOneHundredMicrosecondsAndNoAckMeanNoDataWaiting() {
        AckClock c = new AckClock();
        assertThat(c.dataWaiting()).isFalse();
        c.onAdvancingAck(0);
        c.onNewSegment(50_000);
        c.onPipeIdle(100_000);
        assertThat(c.idle).isFalse();
        assertThat(c.dataWaiting()).isTrue();
        c.onPipeIdle(100_001);
        assertThat(c.idle).isTrue();
        assertThat(c.dataWaiting()).isFalse();

        c.startRound();
        assertThat(c.idle).isFalse();
        assertThat(c.acks).isZero();
        assertThat(c.answeredAcks).isZero();
        assertThat(c.dataWaiting()).isFalse();
    }
}
