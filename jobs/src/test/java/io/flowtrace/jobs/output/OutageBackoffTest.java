package io.flowtrace.jobs.output;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class OutageBackoffTest {

    @Test
    void doublesFromTheInitialDelayUpToTheCap() {
        OutageBackoff b = new OutageBackoff(500, 10_000, 60_000);
        // 500 · 2^n: 500, 1000, 2000, 4000, 8000, then the 10 s cap.
        assertThat(new long[] {
                    b.delayMs(0), b.delayMs(1), b.delayMs(2), b.delayMs(3), b.delayMs(4), b.delayMs(5), b.delayMs(40)
                })
                .containsExactly(500, 1_000, 2_000, 4_000, 8_000, 10_000, 10_000);
    }

    @Test
    void givesUpWhenTheNextWaitWouldPassTheTolerance() {
        OutageBackoff b = new OutageBackoff(500, 10_000, 60_000);
        assertThat(b.givesUp(50_000, 10_000)).isFalse();
        assertThat(b.givesUp(50_001, 10_000)).isTrue();
    }

    @Test
    void refusesAnInitialDelayAboveTheCap() {
        assertThatThrownBy(() -> new OutageBackoff(20_000, 10_000, 60_000))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
