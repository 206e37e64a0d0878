package io.flowtrace.jobs.conntrack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.flowtrace.avro.ConntrackBudget;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The conntrack budget windows (keyBy vantage, tumbling 1 s and 1 min event time, core's
 * EventSizeBudget per window) on hand-built, already sized samples in shuffled order, parallelism 2.
 * Every expected value below is worked out by hand in the comments.
 */
class ConntrackBudgetWindowTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(2)
            .build());

    /** A minute boundary: 1_795_999_980_000 ms = 29_933_333 × 60 000. */
    private static final long M = 1_795_999_980_000L;
    /** Requested SO_RCVBUF 1024 → sk_rcvbuf = max(2 × 1024, SOCK_MIN_RCVBUF 2280) = 2280 bytes. */
    private static final int RCVBUF = 1024;

    private static final long DRAIN_NS = 100_000_000L;

    @Test
    void aShortWindowComesFirstAndAbsurdLengthsAreOneClearLine() {
        assertThat(new ConntrackBudgetWindow(DRAIN_NS, RCVBUF, "stock", 1000, 0).windowSizes())
                .containsExactly(Duration.ofSeconds(1), Duration.ofMinutes(1));
        assertThat(new ConntrackBudgetWindow(DRAIN_NS, RCVBUF, "stock", 1000, 100).windowSizes())
                .containsExactly(Duration.ofMillis(100), Duration.ofSeconds(1), Duration.ofMinutes(1));
        for (long absurd : new long[] {-1, 1000, 60_000}) {
            assertThatThrownBy(() -> new ConntrackBudgetWindow(DRAIN_NS, RCVBUF, "stock", 1000, absurd))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("--conntrack-short-window-ms must be 0 (none) or 1 to 999 ms, got " + absurd);
        }
    }

    @Test
    void budgetsPerVantageAndWindowAddUpByHand() throws Exception {
        List<ConntrackSample> in = new ArrayList<>(List.of(
                // vantage a/ct, second 0 of the minute: NEW at +0 and +5 ms, UPDATE at +50 ms, DESTROY at +500 ms
                ev("a", 0, ConntrackSample.NEW, 200, 548, 1000, true),
                ev("a", 5, ConntrackSample.NEW, 200, 548, 1000, true),
                ev("a", 50, ConntrackSample.UPDATE, 208, 548, 1000, true),
                ev("a", 500, ConntrackSample.DESTROY, 252, 548, 1000, true),
                // second 1: one NEW and a loss report of 2 ENOBUFS
                ev("a", 1200, ConntrackSample.NEW, 160, 516, 1000, true),
                ConntrackSample.loss("a", "ct", ns(1300), 2),
                // vantage b/ct (a conntrack -E text source: cannot see ENOBUFS), at +30 s
                ev("b", 30_000, ConntrackSample.NEW, 140, 540, 1280, false)));
        Collections.shuffle(in, new Random(5));

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        DataStream<ConntrackSample> samples = env.fromData(in)
                .assignTimestampsAndWatermarks(
                        WatermarkStrategy.<ConntrackSample>forBoundedOutOfOrderness(Duration.ofMinutes(2))
                                .withTimestampAssigner((s, t) -> s.timeNs / 1_000_000L));
        Map<String, ConntrackBudget> out = new HashMap<>();
        Map<String, BudgetWindow> rows = new HashMap<>();
        try (var it = ConntrackBudgetWindow.budgets(samples, new ConntrackBudgetWindow(DRAIN_NS, RCVBUF, "stock"))
                .executeAndCollect()) {
            it.forEachRemaining(b -> {
                String k = b.record.getVantage().getAgentId() + " " + b.record.getWindowSizeMs() + " "
                        + (b.record.getWindowStartMs() - M);
                out.put(k, b.record);
                rows.put(k, b);
            });
        }
        assertThat(out.keySet())
                .containsExactlyInAnyOrder("a 1000 0", "a 1000 1000", "a 60000 0", "b 1000 30000", "b 60000 0");

        ConntrackBudget a0 = out.get("a 1000 0");
        assertThat(a0.getWindowEndMs()).isEqualTo(M + 1000);
        assertThat(List.of(a0.getEventsNew(), a0.getEventsUpdate(), a0.getEventsDestroy()))
                .containsExactly(2L, 1L, 1L);
        assertThat(a0.getEventsPerS()).isEqualTo(4.0); // 4 events / 1 s
        assertThat(a0.getMessageBytes()).isEqualTo(860); // 200 + 200 + 208 + 252
        assertThat(a0.getMessageBytesPerS()).isEqualTo(860.0);
        assertThat(a0.getEstimatedBytes()).isEqualTo(2192); // 4 × 548
        assertThat(a0.getWasteRatio()).isCloseTo(1 - 860.0 / 2192, within(1e-12));
        assertThat(a0.getTruesizeBytes()).isEqualTo(4000);
        assertThat(a0.getPeakBurst10msBytes()).isEqualTo(2000); // +0 and +5 ms share [0, 10 ms)
        assertThat(a0.getPeakBurst100msBytes()).isEqualTo(3000); // +0, +5, +50 ms in [0, 100 ms)
        assertThat(a0.getBufferNeededBytes()).isEqualTo(3000); // same three within one 100 ms stall
        assertThat(a0.getDrainLatencyMs()).isEqualTo(100.0);
        assertThat(a0.getConfiguredBufferBytes()).isEqualTo(1024);
        assertThat(a0.getBufferUtilisation()).isCloseTo(3000.0 / 2280, within(1e-12));
        assertThat(a0.getEnobufsPredicted()).isTrue(); // 1000 + 1000 queued, +1000 > 2280
        assertThat(rows.get("a 1000 0").predictedDrops).isEqualTo(1); // the UPDATE at +50 ms
        assertThat(rows.get("a 1000 0").predictedEnobufs).isEqualTo(1);
        assertThat(rows.get("a 1000 0").risk).isEqualTo("OVERFLOW");
        assertThat(rows.get("a 1000 0").effectiveRcvbuf).isEqualTo(2280);
        assertThat(a0.getEnobufsObserved()).isEqualTo(0L); // raw source, no loss report here
        // sizes 200 200 208 252: mean 215, p50 = 2nd = 200, p90 = 4th (ceil 3.6), p99 = 252, sd =
        // sqrt((225+225+49+1369)/4)
        assertThat(a0.getMessageSizeBytes().getCount()).isEqualTo(4);
        assertThat(a0.getMessageSizeBytes().getMin()).isEqualTo(200.0);
        assertThat(a0.getMessageSizeBytes().getMean()).isEqualTo(215.0);
        assertThat(a0.getMessageSizeBytes().getP50()).isEqualTo(200.0);
        assertThat(a0.getMessageSizeBytes().getP90()).isEqualTo(252.0);
        assertThat(a0.getMessageSizeBytes().getP99()).isEqualTo(252.0);
        assertThat(a0.getMessageSizeBytes().getMax()).isEqualTo(252.0);
        assertThat(a0.getMessageSizeBytes().getSd()).isCloseTo(Math.sqrt(467), within(1e-9));

        ConntrackBudget a1 = out.get("a 1000 1000");
        assertThat(a1.getEventsNew()).isEqualTo(1);
        assertThat(a1.getMessageBytes()).isEqualTo(160);
        assertThat(a1.getEstimatedBytes()).isEqualTo(516);
        assertThat(a1.getTruesizeBytes()).isEqualTo(1000);
        assertThat(a1.getBufferNeededBytes()).isEqualTo(1000);
        assertThat(a1.getEnobufsPredicted()).isFalse(); // 1000 ≤ 2280
        assertThat(a1.getEnobufsObserved()).isEqualTo(2L); // the loss report

        ConntrackBudget am = out.get("a 60000 0");
        assertThat(List.of(am.getEventsNew(), am.getEventsUpdate(), am.getEventsDestroy()))
                .containsExactly(3L, 1L, 1L);
        assertThat(am.getEventsPerS()).isCloseTo(5 / 60.0, within(1e-12));
        assertThat(am.getMessageBytes()).isEqualTo(1020); // 860 + 160
        assertThat(am.getMessageBytesPerS()).isCloseTo(1020 / 60.0, within(1e-12));
        assertThat(am.getEstimatedBytes()).isEqualTo(2708); // 2192 + 516
        assertThat(am.getTruesizeBytes()).isEqualTo(5000);
        assertThat(am.getTruesizeBytesPerS()).isCloseTo(5000 / 60.0, within(1e-12));
        assertThat(am.getPeakBurst10msBytes()).isEqualTo(2000);
        assertThat(am.getPeakBurst100msBytes()).isEqualTo(3000);
        assertThat(am.getBufferNeededBytes()).isEqualTo(3000);
        assertThat(am.getEnobufsPredicted()).isTrue();
        assertThat(rows.get("a 60000 0").predictedDrops).isEqualTo(1);
        assertThat(am.getEnobufsObserved()).isEqualTo(2L);

        ConntrackBudget b0 = out.get("b 1000 30000");
        assertThat(b0.getMessageBytes()).isEqualTo(140);
        assertThat(b0.getTruesizeBytes()).isEqualTo(1280);
        assertThat(b0.getEnobufsObserved()).isNull(); // text source only: cannot see ENOBUFS
        assertThat(out.get("b 60000 0").getEnobufsObserved()).isNull();
        assertThat(out.get("b 60000 0").getMessageBytes()).isEqualTo(140);
    }

    private static ConntrackSample ev(
            String agent, long offsetMs, byte kind, int exact, int estimate, int truesize, boolean netlink) {
        return ConntrackSample.event(agent, "ct", ns(offsetMs), kind, exact, estimate, truesize, netlink);
    }

    private static long ns(long offsetMs) {
        return (M + offsetMs) * 1_000_000L;
    }
}
