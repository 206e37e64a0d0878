package io.flowtrace.jobs.window;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.avro.FlowRecord;
import io.flowtrace.jobs.flow.FlowSummary;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * The flow task's half of the window aggregation: open windows held until the watermark passes their
 * end, then one partial per key and window before the watermark, the state gone with them; restored
 * from a checkpoint; everything sent when the input goes idle; a flow behind the watermark sent alone.
 * Expected figures are counted by hand from the flows each test sends.
 */
class LocalWindowCombinerTest {
    /** A 10 s window boundary: 1_796_000_000_000 = 179_600_000 × 10_000. */
    private static final long T = 1_796_000_000_000L;

    private static final KeySelector<FlowSummary, String> SERVER = s -> s.server;

    private static OneInputStreamOperatorTestHarness<FlowSummary, WindowPartial> harness() throws Exception {
        return new OneInputStreamOperatorTestHarness<>(new LocalWindowCombiner(10_000, SERVER, 8));
    }

    private static StreamRecord<FlowSummary> flow(String server, long ms, long setupUs, boolean last) {
        FlowRecord r = FlowRecord.newBuilder().build();
        r.getFlow().getVantage().setAgentId("lab");
        r.getFlow().getVantage().setInterfaceName("eth0");
        r.getFlow().setServer(server);
        r.getSetup().setSetupUs(setupUs);
        return new StreamRecord<>(FlowSummary.of(r, 0, last), ms);
    }

    /** The output as "server flows setup-sum @ timestamp" and "W timestamp" lines, in order. */
    private static List<String> out(OneInputStreamOperatorTestHarness<FlowSummary, WindowPartial> h) {
        List<String> lines = new ArrayList<>();
        for (Object o : h.getOutput()) {
            if (o instanceof Watermark w) {
                lines.add("W " + (w.getTimestamp() - T));
            } else if (o instanceof StreamRecord<?> r && r.getValue() instanceof WindowPartial p) {
                lines.add(
                        p.key + " " + p.stats.flows + " " + (long) p.stats.setupUs.sum + " @" + (r.getTimestamp() - T));
            } else {
                lines.add(String.valueOf(o));
            }
        }
        h.getOutput().clear();
        return lines;
    }

    @Test
    void sendsOnePartialPerKeyAndWindowWhenTheWatermarkPassesItsEndAndForgetsIt() throws Exception {
        try (var h = harness()) {
            h.open();
            h.processElement(flow("a:80", T + 1, 100, true));
            h.processElement(flow("a:80", T + 2, 300, true));
            h.processElement(flow("a:80", T + 3, 5000, false)); // an update, not an ended flow: not counted
            h.processElement(flow("b:80", T + 3, 40, true));
            h.processElement(flow("a:80", T + 10_001, 7, true)); // the next window
            assertThat(out(h)).isEmpty();
            assertThat(((LocalWindowCombiner) h.getOperator()).openWindows()).isEqualTo(3);

            h.processWatermark(T + 9_998); // the first window ends at T + 9_999
            assertThat(out(h)).containsExactly("W 9998");

            h.processWatermark(T + 9_999);
            // a: two flows, setup 100 + 300; b: one flow, 40; each stamped with the window's last ms, then the
            // watermark
            assertThat(out(h)).containsExactlyInAnyOrder("a:80 2 400 @9999", "b:80 1 40 @9999", "W 9999");
            assertThat(((LocalWindowCombiner) h.getOperator()).openWindows()).isEqualTo(1);

            h.processElement(flow("a:80", T + 5, 11, true)); // behind the watermark: sent alone at once
            assertThat(out(h)).containsExactly("a:80 1 11 @9999");

            h.processWatermark(T + 20_000);
            assertThat(out(h)).containsExactly("a:80 1 7 @19999", "W 20000");
            assertThat(((LocalWindowCombiner) h.getOperator()).openWindows()).isZero();
        }
    }

    @Test
    void openWindowsSurviveACheckpointAndRestore() throws Exception {
        OperatorSubtaskState snapshot;
        try (var h = harness()) {
            h.open();
            h.processElement(flow("a:80", T + 1, 100, true));
            h.processElement(flow("a:80", T + 2, 20, true));
            h.processElement(flow("b:80", T + 10_500, 3, true));
            snapshot = h.snapshot(1, T + 3);
        }
        try (var h = harness()) {
            h.initializeState(snapshot);
            h.open();
            assertThat(((LocalWindowCombiner) h.getOperator()).openWindows()).isEqualTo(2);
            h.processElement(flow("a:80", T + 3, 1000, true));
            h.processWatermark(T + 30_000);
            assertThat(out(h)).containsExactlyInAnyOrder("a:80 3 1120 @9999", "b:80 1 3 @19999", "W 30000");
        }
    }

    @Test
    void anIdleInputSendsEveryOpenWindowBeforeItsStatus() throws Exception {
        try (var h = harness()) {
            h.open();
            h.processElement(flow("a:80", T + 1, 100, true));
            h.processElement(flow("a:80", T + 10_001, 200, true));
            h.processWatermarkStatus(WatermarkStatus.IDLE);

            List<String> lines = out(h);
            assertThat(lines.subList(0, 2)).containsExactlyInAnyOrder("a:80 1 100 @9999", "a:80 1 200 @19999");
            assertThat(lines).hasSize(3);
            assertThat(((LocalWindowCombiner) h.getOperator()).openWindows()).isZero();
        }
    }

    /**
     * Two tasks' partials merged by the window after the shuffle give what aggregating every flow in
     * one place gives: 5 flows, setup times 10, 20, 30, 40, 50 µs (mean 30, p50 30 by nearest rank).
     */
    @Test
    void mergedPartialsEqualAggregatingEveryFlow() {
        FlowWindowStats one = new FlowWindowStats(8);
        FlowWindowStats two = new FlowWindowStats(8);
        long[] setups = {10, 20, 30, 40, 50};
        for (int i = 0; i < setups.length; i++) {
            (i % 2 == 0 ? one : two).add(flow("a:80", T + i, setups[i], true).getValue());
        }
        PartialsAggregate window = new PartialsAggregate(8);
        FlowWindowStats merged = window.createAccumulator();
        window.add(new WindowPartial("a:80", T + 9_999, one), merged);
        window.add(new WindowPartial("a:80", T + 9_999, two), merged);

        assertThat(merged.flows).isEqualTo(5);
        assertThat(merged.completedHandshakes).isEqualTo(5);
        assertThat(merged.service).isEqualTo("a:80");
        assertThat(merged.setupUs.count).isEqualTo(5);
        assertThat(merged.setupUs.mean()).isEqualTo(30.0);
        assertThat(merged.setupUs.percentile(50)).isEqualTo(30.0);
        assertThat(merged.setupUs.min).isEqualTo(10.0);
        assertThat(merged.setupUs.max).isEqualTo(50.0);
    }
}
