package io.flowtrace.jobs.conntrack;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/** At most N samples per vantage and event-time minute reach the budget windows; the state goes with the minute. */
class ConntrackSampleCapTest {
    /** A minute boundary: 1_795_999_980_000 ms = 29_933_333 × 60 000. */
    private static final long M = 1_795_999_980_000L;

    @Test
    void passesTheFirstThreeSamplesPerVantageAndMinuteAndForgetsTheMinuteAfterItsEnd() throws Exception {
        try (var h = new KeyedOneInputStreamOperatorTestHarness<>(
                new KeyedProcessOperator<>(new ConntrackSampleCap(3)),
                new ConntrackBudgetWindow.VantageKey(),
                Types.STRING)) {
            h.open();
            // vantage a: five samples in minute 0 (two over the cap), two in minute 1; vantage b: one in minute 0
            for (long ms : new long[] {0, 10, 20, 30, 40}) {
                h.processElement(sample("a", ms), M + ms);
            }
            h.processElement(sample("b", 5), M + 5);
            h.processElement(sample("a", 60_000), M + 60_000);
            h.processElement(sample("a", 60_500), M + 60_500);

            List<Long> passed = h.extractOutputValues().stream()
                    .map(s -> s.agentId.equals("a") ? s.timeNs / 1_000_000L - M : -1L)
                    .toList();
            // 3 of a's minute 0 (0, 10, 20), b's one (-1 here), both of a's minute 1
            assertThat(passed).containsExactly(0L, 10L, 20L, -1L, 60_000L, 60_500L);
            assertThat(h.numEventTimeTimers()).isEqualTo(3); // (a, minute 0), (b, minute 0), (a, minute 1)

            h.processWatermark(M + 60_000); // minute 0 is over: its counts go
            assertThat(h.numEventTimeTimers()).isEqualTo(1);
            h.processWatermark(M + 120_000);
            assertThat(h.numEventTimeTimers()).isZero();
            assertThat(h.numKeyedStateEntries()).isZero();
        }
    }

    private static ConntrackSample sample(String agent, long msInMinute) {
        return ConntrackSample.event(
                agent, "ct", (M + msInMinute) * 1_000_000L, ConntrackSample.NEW, 160, 516, 1000, true);
    }
}
