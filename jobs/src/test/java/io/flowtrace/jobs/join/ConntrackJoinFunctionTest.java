package io.flowtrace.jobs.join;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowtrace.avro.FlowRecord;
import io.flowtrace.avro.Vantage;
import io.flowtrace.jobs.flow.FlowSummary;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.operators.co.KeyedCoProcessOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link ConntrackJoinFunction} on Flink's operator harness with the real NAT recording's conntrack
 * events: rows when both sides are in (in either order), every state entry and timer gone after the
 * expiry, and the same rows after a snapshot/restore mid-join, on heap and RocksDB.
 */
class ConntrackJoinFunctionTest {
    private static final long WAIT_MS = 60_000;

    /** The client-side flow of each recorded connection, with the kernel's packet counts minus {@code missing}. */
    private static List<FlowSummary> flows(Map<String, CtFacts> entries, long missing) {
        List<FlowSummary> out = new ArrayList<>();
        for (CtFacts ct : entries.values()) {
            FlowRecord r = FlowRecord.newBuilder().build();
            r.getFlow().setVantage(new Vantage("lab", "c0"));
            r.getFlow().setClient(ct.origSrc);
            r.getFlow().setServer(ct.origDst);
            r.getFlow().setInstance(ct.startNs / 1000);
            r.setFirstSeenUs(ct.startNs / 1000);
            r.setLastSeenUs(ct.stopNs / 1000 - 900_000); // the last ACK, ~1 s (TIME_WAIT here) before the stop
            r.getC2s().setPackets(ct.origPackets - missing);
            r.getS2c().setPackets(ct.replyPackets);
            r.setRecordTimeUs(r.getLastSeenUs());
            out.add(FlowSummary.of(r, 0, true));
        }
        return out;
    }

    private static Map<String, CtFacts> entries(List<CtFacts> events) {
        Map<String, CtFacts> m = new java.util.TreeMap<>();
        events.forEach(e -> m.merge(e.entryId(), e, ConntrackJoin::merge));
        return m;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"hashmap", "rocksdb"})
    void joinsInEitherOrderExpiresEverythingAndSurvivesRestore(String backend) throws Exception {
        List<CtFacts> events = new ArrayList<>();
        ConntrackJoinTest.recordedFacts().forEach(e -> events.addAll(ConntrackJoin.keys(e)));
        Map<String, CtFacts> entries = entries(ConntrackJoinTest.recordedFacts());
        List<FlowSummary> flows = flows(entries, 2);

        // Flows first, then conntrack; uninterrupted.
        List<FlowConntrack> uninterrupted;
        try (var h = harness(backend(backend), null)) {
            flows.forEach(f -> element1(h, f));
            events.forEach(e -> element2(h, e));
            uninterrupted = finalRows(h.extractOutputValues());
            h.processWatermark1(new Watermark(Long.MAX_VALUE));
            h.processWatermark2(new Watermark(Long.MAX_VALUE));
            if (backend.equals("hashmap")) {
                assertThat(h.numKeyedStateEntries()).isZero();
            }
            assertThat(h.numEventTimeTimers()).isZero();
        }
        assertThat(uninterrupted).hasSize(entries.size());
        for (FlowConntrack r : uninterrupted) {
            assertThat(r.c2sMissingPackets).isEqualTo(2);
            assertThat(r.s2cMissingPackets).isZero();
            assertThat(r.tupleSide).isEqualTo("original");
        }

        // Conntrack first (half of it), snapshot, restore, then the rest and the flows.
        OperatorSubtaskState snapshot;
        int half = events.size() / 2;
        try (var before = harness(backend(backend), null)) {
            events.subList(0, half).forEach(e -> element2(before, e));
            snapshot = before.snapshot(1L, 1L);
        }
        try (var after = harness(backend(backend), snapshot)) {
            events.subList(half, events.size()).forEach(e -> element2(after, e));
            flows.forEach(f -> element1(after, f));
            assertThat(finalRows(after.extractOutputValues()))
                    .usingRecursiveFieldByFieldElementComparator()
                    .containsExactlyInAnyOrderElementsOf(uninterrupted);
            // Before the wait is over, nothing is dropped; after it, everything.
            long lastStopMs = entries.values().stream()
                    .mapToLong(c -> c.stopNs / 1_000_000)
                    .max()
                    .orElseThrow();
            after.processWatermark1(new Watermark(lastStopMs));
            after.processWatermark2(new Watermark(lastStopMs));
            if (backend.equals("hashmap")) {
                assertThat(after.numKeyedStateEntries()).isPositive();
            }
            after.processWatermark1(new Watermark(lastStopMs + WAIT_MS + 1_000));
            after.processWatermark2(new Watermark(lastStopMs + WAIT_MS + 1_000));
            if (backend.equals("hashmap")) {
                assertThat(after.numKeyedStateEntries()).isZero();
            }
            assertThat(after.numEventTimeTimers()).isZero();
        }
    }

    /** The latest row per flow instance (what the upsert leaves in the table). */
    private static List<FlowConntrack> finalRows(List<FlowConntrack> rows) {
        Map<String, FlowConntrack> last = new java.util.TreeMap<>();
        for (FlowConntrack r : rows) {
            last.merge(
                    r.vantage + " " + r.client + " " + r.instance, r, (a, b) -> b.joinTimeUs >= a.joinTimeUs ? b : a);
        }
        return new ArrayList<>(last.values());
    }

    private static StateBackend backend(String name) {
        return name.equals("rocksdb") ? new EmbeddedRocksDBStateBackend() : new HashMapStateBackend();
    }

    private static KeyedTwoInputStreamOperatorTestHarness<String, FlowSummary, CtFacts, FlowConntrack> harness(
            StateBackend backend, OperatorSubtaskState restore) throws Exception {
        var h = new KeyedTwoInputStreamOperatorTestHarness<>(
                new KeyedCoProcessOperator<>(new ConntrackJoinFunction(WAIT_MS, 3_600_000, 2_000, 16)),
                (FlowSummary s) -> ConntrackJoin.key(s.agentId, s.client, s.server),
                (CtFacts c) -> c.joinKey,
                Types.STRING);
        h.setStateBackend(backend);
        if (restore != null) {
            h.initializeState(restore);
        }
        h.open();
        return h;
    }

    private static void element1(
            KeyedTwoInputStreamOperatorTestHarness<String, FlowSummary, CtFacts, FlowConntrack> h, FlowSummary f) {
        try {
            h.processElement1(f, f.recordTimeUs / 1000);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static void element2(
            KeyedTwoInputStreamOperatorTestHarness<String, FlowSummary, CtFacts, FlowConntrack> h, CtFacts c) {
        try {
            h.processElement2(c, c.eventTimeNs / 1_000_000);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
