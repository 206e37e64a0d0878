package io.flowtrace.jobs.input;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SplitIdlenessTest {
    private static final long TIMEOUT = 60_000;

    @Test
    void emptySplitIsIdleOnceTheTimeoutHasPassed() {
        SplitIdleness split = new SplitIdleness(new SplitIdleness.ReaderActivity(), TIMEOUT, 1_000);
        assertThat(split.idle(1_000 + TIMEOUT - 1)).isFalse();
        assertThat(split.idle(1_000 + TIMEOUT)).isTrue();
    }

    @Test
    void quietSplitIsIdleWhileAnotherSplitOfItsReaderHasRecords() {
        SplitIdleness.ReaderActivity reader = new SplitIdleness.ReaderActivity();
        SplitIdleness quiet = new SplitIdleness(reader, TIMEOUT, 0);
        SplitIdleness busy = new SplitIdleness(reader, TIMEOUT, 0);
        quiet.record(10_000);
        busy.record(10_000);
        busy.record(10_000 + TIMEOUT); // the other split keeps receiving
        assertThat(quiet.idle(10_000 + TIMEOUT)).isTrue();
        assertThat(busy.idle(10_000 + TIMEOUT)).isFalse();
    }

    @Test
    void noSplitGoesIdleWhenTheWholeInputPauses() {
        SplitIdleness.ReaderActivity reader = new SplitIdleness.ReaderActivity();
        SplitIdleness a = new SplitIdleness(reader, TIMEOUT, 0);
        SplitIdleness b = new SplitIdleness(reader, TIMEOUT, 0);
        a.record(5_000);
        b.record(7_000);
        // Ten timeouts without a record anywhere: both stay active, event time holds.
        assertThat(a.idle(7_000 + 10 * TIMEOUT)).isFalse();
        assertThat(b.idle(7_000 + 10 * TIMEOUT)).isFalse();
    }

    @Test
    void quietSplitComesBackAsSoonAsItHasARecord() {
        SplitIdleness.ReaderActivity reader = new SplitIdleness.ReaderActivity();
        SplitIdleness quiet = new SplitIdleness(reader, TIMEOUT, 0);
        SplitIdleness busy = new SplitIdleness(reader, TIMEOUT, 0);
        quiet.record(0);
        busy.record(TIMEOUT);
        assertThat(quiet.idle(TIMEOUT)).isTrue();
        quiet.record(TIMEOUT + 1);
        assertThat(quiet.idle(TIMEOUT + 1)).isFalse();
    }
}
